/*
 * frugal/packer_vtable.h — the vtable of FRUGAL_KIND_PACKER strategies:
 * sequence packers, implemented by plugins and called by the core.
 *
 * A packer assigns variable-length sequences to fixed-capacity rows
 * ("packs") so that little of each row is padding. The split of work:
 *   - the core validates the caller's input, applies the overlong policy
 *     (error, truncate or split: a plugin never sees a length > max_len),
 *     checks the plugin's assignment (every unit exactly once, no pack over
 *     max_len or max_per_pack), derives every per-pack format (cu_seqlens,
 *     position ids, segment ids, masks, token gathers) and the statistics,
 *     and implements streaming with a bounded window on top of `pack`;
 *   - the plugin only decides the assignment.
 * So a vendor's packer needs one function to get every output format, and
 * those formats cannot differ between packers.
 *
 * Declares no function; safe for plugins.
 */
#ifndef FRUGAL_PACKER_VTABLE_H_
#define FRUGAL_PACKER_VTABLE_H_

#include "frugal/plugin.h"
#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Request and assignment                                                   */
/* ======================================================================== */

/**
 * What the core asks a packer to pack. Owned by the core; valid during the
 * pack call only. Units are numbered 0..count-1 by their position here.
 */
typedef struct frugal_pack_request {
  /** sizeof(frugal_pack_request) as built by the core. */
  size_t struct_size;
  /** count lengths, each in [1, max_len]; never NULL. */
  const int64_t* lengths;
  /** Number of units, >= 1. */
  size_t count;
  /** Tokens per pack, > 0. */
  int64_t max_len;
  /** Units per pack, >= 0; 0 means unlimited. */
  int64_t max_per_pack;
  /** Seed for any random choice: the same request and seed must give the same assignment. */
  uint64_t seed;
} frugal_pack_request;

/**
 * Where a packer writes its assignment. The buffers are owned by the core
 * and sized for the worst case (one unit per pack).
 */
typedef struct frugal_pack_assignment {
  /** sizeof(frugal_pack_assignment) as built by the core. */
  size_t struct_size;
  /**
   * request->count entries: every unit index exactly once, grouped by
   * pack in pack order, and in each pack in the order its units should
   * appear in the row. Never NULL.
   */
  int64_t* units;
  /**
   * request->count + 1 entries: pack p holds units[pack_offsets[p] ..
   * pack_offsets[p+1]); pack_offsets[0] == 0 and
   * pack_offsets[pack_count] == count. Never NULL.
   */
  int64_t* pack_offsets;
  /** // out: number of packs, in [1, count]. */
  size_t pack_count;
  /**
   * // out, optional: the name of the method that produced the assignment
   * (e.g. the winner when a strategy tries several); a static string valid
   * until the plugin unloads. NULL (the initial value) means the strategy's
   * own name. The core copies it.
   */
  const char* method;
} frugal_pack_assignment;

/* ======================================================================== */
/* Vtable                                                                   */
/* ======================================================================== */

/**
 * Table of a packer strategy. Owned by the plugin (static), valid until
 * unload. Every v2.0 slot is required. Errors are made with the host
 * table's error_create. No slot may throw.
 */
typedef struct frugal_packer_vtable {
  /** sizeof(frugal_packer_vtable) as built by the plugin. */
  size_t struct_size;

  /**
   * Creates an instance. May run concurrently on several threads.
   *   host:     the plugin's host table; never NULL.
   *   options:  the strategy's own options (e.g. "algo"), never the core's
   *             (max_len, max_per_pack, overlong, seed: those arrive in each
   *             request); may be NULL; read during the call only.
   *   instance: // out, never NULL; opaque plugin-owned state, released by
   *             destroy. Must be non-NULL on success.
   * Unknown or ill-typed options must be reported as errors.
   */
  frugal_error* (*create)(const frugal_host_api* host, const frugal_options* options, void** instance);

  /**
   * Destroys an instance made by create, exactly once; never concurrently
   * with pack on the same instance. The core never passes NULL.
   */
  void (*destroy)(void* instance);

  /**
   * Assigns every unit of `request` to a pack.
   *   request: never NULL; see frugal_pack_request.
   *   out:     never NULL; fill units, pack_offsets and pack_count (and
   *            optionally method). The core rejects an assignment that
   *            places a unit twice or never, overfills a pack, or exceeds
   *            max_per_pack, with FRUGAL_ERR_INTERNAL naming the fault.
   * Thread safety as declared by the strategy's FRUGAL_STRATEGY_* flags.
   */
  frugal_error* (*pack)(void* instance, const frugal_pack_request* request, frugal_pack_assignment* out);
} frugal_packer_vtable;

/** Bytes of frugal_packer_vtable a core requires (through `pack`). */
#define FRUGAL_PACKER_VTABLE_MIN_SIZE (offsetof(frugal_packer_vtable, pack) + sizeof(void*))

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_request, lengths) == 8, pack_request_lengths);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_request, count) == 16, pack_request_count);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_request, max_len) == 24, pack_request_max_len);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_request, max_per_pack) == 32, pack_request_max_per_pack);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_request, seed) == 40, pack_request_seed);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_pack_request) == 48, pack_request_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_assignment, units) == 8, pack_assignment_units);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_assignment, pack_offsets) == 16, pack_assignment_offsets);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_assignment, pack_count) == 24, pack_assignment_count);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_assignment, method) == 32, pack_assignment_method);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_pack_assignment) == 40, pack_assignment_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_packer_vtable, create) == 8, packer_create);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_packer_vtable, destroy) == 16, packer_destroy);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_packer_vtable, pack) == 24, packer_pack);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_packer_vtable) == 32, packer_vtable_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_PACKER_VTABLE_H_ */
