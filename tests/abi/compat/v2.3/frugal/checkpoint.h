/*
 * frugal/checkpoint.h — the checkpoint engine (host side): heartbeat and
 * full checkpoints that survive preemption.
 *
 * The host registers named state tensors (CPU, pinned or CUDA memory) once.
 * frugal_ckpt_save copies them into a host snapshot (the only time the
 * training thread waits) and a background thread persists the snapshot
 * through a frugal_store. Each checkpoint is one key prefix ("directory")
 * holding shards and a manifest; the manifest is written last, atomically,
 * and is the single commit point: a checkpoint without a valid manifest
 * does not exist. Recovery picks the newest checkpoint whose manifest and
 * shard checksums (xxHash3-64) verify and reports why it skipped others.
 *
 * Kinds: a heartbeat is the light state needed to resume, taken often (on a
 * timer); a full checkpoint holds everything. Each registered tensor says
 * which kinds include it. Host metadata bytes (step, data-loader cursor,
 * RNG state) travel with every checkpoint.
 *
 * Host state: state that is not a tensor (a router's bias,
 * a quantizer's amax history, the run scheduler, the loss scaler, or bytes
 * the host serialises itself) is registered too, with an export and an
 * import function (frugal_ckpt_register_state, or one call per core object:
 * frugal_ckpt_register_router, ...). Each save exports it with the tensors;
 * the engine stores it in the checkpoint's shards, with its size and
 * checksum in the manifest, verifies it like a tensor and imports it on
 * restore. No host needs its own container inside the metadata for it.
 *
 * One checkpoint in flight: a save that arrives while the previous one is
 * still persisting first waits for it (so host memory stays bounded by one
 * snapshot), unless FRUGAL_CKPT_SAVE_SKIP_IF_BUSY asks to coalesce: then
 * the new request is dropped and reported as skipped.
 *
 * Thread safety: an engine's functions may be called from any thread;
 * they are serialised internally, except that list/verify/latest may run
 * while a persist is in flight. Registered tensor memory must not be
 * written by the host while frugal_ckpt_save or frugal_ckpt_restore runs,
 * nor a registered state's object used (see frugal_ckpt_state_fns for the
 * threads its functions are called on).
 */
#ifndef FRUGAL_CHECKPOINT_H_
#define FRUGAL_CHECKPOINT_H_

#include "frugal/loss_scaler.h"
#include "frugal/quantizer.h"
#include "frugal/router.h"
#include "frugal/scheduler.h"
#include "frugal/store.h"
#include "frugal/tensor.h"
#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Kinds, statuses, flags                                                   */
/* ======================================================================== */

/* Kinds: FRUGAL_CKPT_HEARTBEAT and FRUGAL_CKPT_FULL (frugal_ckpt_kind_values,
   frugal/types.h, shared with the scheduler's decisions). */
/** Mask of every kind (HEARTBEAT | FULL). */
#define FRUGAL_CKPT_ALL_KINDS 3u

/** Verification outcome of one checkpoint. Carried as int32_t. */
enum frugal_ckpt_status_values {
  FRUGAL_CKPT_VALID = 0,        /**< Manifest and every shard verify. */
  FRUGAL_CKPT_INCOMPLETE = 1,   /**< No manifest: an unfinished (torn) save. */
  FRUGAL_CKPT_CORRUPT = 2,      /**< Manifest or a shard fails its size or checksum. */
  FRUGAL_CKPT_NEWER_FORMAT = 3, /**< Manifest format newer than this reader. */
  FRUGAL_CKPT_UNREADABLE = 4    /**< The store failed to read it (I/O error). */
};

/** Save flag: persist before returning (as if followed by frugal_ckpt_wait). */
#define FRUGAL_CKPT_SAVE_WAIT ((uint32_t)1 << 0)
/** Save flag: if a checkpoint is still persisting, drop this request (reported as skipped). */
#define FRUGAL_CKPT_SAVE_SKIP_IF_BUSY ((uint32_t)1 << 1)

/** Longest checkpoint name including the terminating NUL. */
#define FRUGAL_CKPT_NAME_CAPACITY 64
/** Capacity of the reason text in frugal_ckpt_info, including the NUL. */
#define FRUGAL_CKPT_REASON_CAPACITY 256
/** Longest registered tensor name including the NUL (names are 1..255 bytes). */
#define FRUGAL_CKPT_TENSOR_NAME_CAPACITY 256

/* ======================================================================== */
/* Engine lifetime                                                          */
/* ======================================================================== */

/** A checkpoint engine bound to one store. */
typedef struct frugal_ckpt_engine frugal_ckpt_engine;

/**
 * Creates an engine writing through `store` (which it keeps open; the
 * caller may destroy its own handle right away).
 *   options (NULL for defaults, read during the call only):
 *     keep_heartbeats  int >= 1, default 2: valid heartbeats retained
 *     keep_full        int >= 1, default 2: valid full checkpoints retained
 *     shard_bytes      int >= 4096, default 268435456: target shard size
 *     prefix           string, default "": key prefix of every checkpoint
 *                      (lets several jobs share one store).
 *     comm             comm (frugal_options_set_comm, ABI 2.2): the job's
 *                      ranks save and restore together. Creating the
 *                      engine is then collective over the comm (it splits
 *                      two private sub-groups, so its own collectives never
 *                      meet the host's), as are frugal_ckpt_save,
 *                      frugal_ckpt_emergency_save and frugal_ckpt_restore:
 *                      every rank calls them in the same order with the
 *                      same kind and step. The comm must take host memory
 *                      (mpi, local); the engine keeps its sub-groups, not
 *                      the host's handle. See "Sharded tensors" below for
 *                      what a save and a restore then do. Each collective
 *                      save also carries the ranks' preemption notices: a
 *                      notice any rank had (frugal_preemption_pending) is
 *                      recorded on every rank when the save returns, so a
 *                      host that polls frugal_preemption_pending after its
 *                      saves takes the emergency save with all ranks.
 * One writing engine per prefix, enforced: the first save claims the prefix
 * with a new writer generation (the highest claimed + 1, recorded under
 * "<prefix>writer-claims/" and in every manifest it commits), and an engine
 * whose prefix a newer generation claimed is fenced for good: its persist
 * in flight is refused before its commit (its shards removed), and every
 * later save, commit, frugal_ckpt_gc and retention removal fails with
 * FRUGAL_ERR_FAILED_PRECONDITION naming both generations. So a restarted
 * job may start at once while the preempted one is still persisting: the
 * old job cannot delete or overwrite what the new one commits. Sequences
 * stay unique across generations (a new writer continues past every
 * sequence an older one reserved). An engine that never saves (listing,
 * verifying, restoring, gc from a tool) claims nothing and fences no one.
 * The store offers no compare-and-swap: a claim made during the old
 * writer's last check and its commit is seen at its next check; such a
 * late commit is a valid, older checkpoint and removes nothing.
 * Creating an engine reads and writes nothing in the store.
 *   out: // out, owned by the caller; release with frugal_ckpt_engine_destroy.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_engine_create(frugal_store* store, const frugal_options* options,
                                                                    frugal_ckpt_engine** out);

/**
 * Waits for the in-flight persist (its outcome is logged if unread), then
 * destroys the engine. NULL allowed.
 */
FRUGAL_API void frugal_ckpt_engine_destroy(frugal_ckpt_engine* engine);

/* ======================================================================== */
/* State registration                                                       */
/* ======================================================================== */

/**
 * Registers a state tensor under `name` (1..255 bytes of [A-Za-z0-9_.-/],
 * unique). The view must be compact row-major (strides NULL or row-major)
 * with a dtype and device frugal knows; the view is copied, the memory it
 * points to is borrowed and must stay valid until the tensor is
 * unregistered or the engine destroyed. Registration does not wait for an
 * in-flight persist; the engine's background thread then grows the host
 * snapshot buffer to the registered total and pre-faults it, so the first
 * save does not pay for the allocation (a save that comes before that is
 * done allocates the buffer itself). Host memory stays bounded by one
 * snapshot of the registered state, however many saves.
 *   kinds: mask of the checkpoint kinds that include this tensor; 0 = all.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_register(frugal_ckpt_engine* engine, const char* name,
                                                               const frugal_tensor* view, uint32_t kinds);

/**
 * Unregisters the tensor or the state (frugal_ckpt_register_state) `name`;
 * FRUGAL_ERR_NOT_FOUND if neither is registered. Once it returns, the
 * engine never touches the tensor's memory nor calls the state's functions
 * again (a checkpoint in flight persists its own copy).
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_unregister(frugal_ckpt_engine* engine, const char* name);

/* ======================================================================== */
/* Sharded tensors (ABI 2.2)                                                */
/* ======================================================================== */

/**
 * The part of a global tensor this rank holds, for
 * frugal_ckpt_register_slice: a box of `global_shape` at `offsets` whose
 * extents are the registered view's shape (row-major, like the view).
 * Caller-owned; copied during the call.
 */
typedef struct frugal_ckpt_slice {
  size_t struct_size; /**< sizeof(frugal_ckpt_slice); below FRUGAL_CKPT_SLICE_MIN_SIZE is ABI_MISMATCH. */
  int32_t ndim;       /**< Dimensions; must equal the view's ndim. */
  /**
   * Nonzero: every rank holds the whole tensor (the view's shape is
   * global_shape, offsets NULL or zeros). Saved once, by rank 0, and
   * restored on every rank.
   */
  int32_t replicated;
  const int64_t* global_shape; /**< ndim extents of the whole tensor; not NULL when ndim > 0. */
  const int64_t* offsets;      /**< ndim offsets of this rank's box; NULL = all zero. */
} frugal_ckpt_slice;

/** Smallest struct_size frugal_ckpt_register_slice accepts. */
#define FRUGAL_CKPT_SLICE_MIN_SIZE (sizeof(size_t) + 2 * sizeof(int32_t) + 2 * sizeof(const int64_t*))

/**
 * Registers this rank's slice of the global tensor `name`, on an engine
 * created with a `comm` option (frugal_ckpt_engine_create); an engine
 * without one is FRUGAL_ERR_FAILED_PRECONDITION. Every rank registers the
 * same names with the same dtype and global shape; the slices of all
 * ranks must cover the tensor without overlap (a replicated tensor covers
 * it alone), or the save that finds them otherwise is not committed on
 * any rank. A checkpoint of such an engine (manifest format 3) stores
 * each rank's slice as a chunk, and a job of any number of ranks restores
 * it: each rank reads, and verifies, only the bytes of the stored chunks
 * that overlap the slice it registered (frugal_ckpt_restore). Restoring a
 * heartbeat, every rank takes its full-only slices and states from the
 * same full checkpoint: the newest written before the heartbeat whose
 * blocks every rank could read and verify.
 *   name, view, kinds: as for frugal_ckpt_register (one namespace with the
 *          tensors and states; the view's memory is borrowed the same way).
 *   slice: not NULL; offsets + view extents must lie inside global_shape.
 * A tensor registered with frugal_ckpt_register on such an engine is
 * rank-local: each rank saves its own, and a restore gives each rank the
 * copy its own rank saved (left as it was, and reported by
 * frugal_ckpt_restore_report, when the writing job had no such rank).
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_register_slice(frugal_ckpt_engine* engine, const char* name,
                                                                     const frugal_tensor* view,
                                                                     const frugal_ckpt_slice* slice, uint32_t kinds);

/* ======================================================================== */
/* Host state                                                               */
/* ======================================================================== */

/**
 * The most bytes one registered state may export: 256 MiB.
 * A larger export fails the save with FRUGAL_ERR_OUT_OF_RANGE naming the
 * state and its size; a manifest declaring a larger state is CORRUPT.
 */
#define FRUGAL_CKPT_STATE_MAX_SIZE ((size_t)256 << 20)

/**
 * How the engine saves and restores one piece of host state
 * that is not a tensor. Caller-owned; frugal_ckpt_register_state copies it
 * during the call.
 *
 * Threads: the engine calls export_state only on the thread that called
 * frugal_ckpt_save or frugal_ckpt_emergency_save on this engine, inside
 * that call (after its wait for the previous persist, before it returns),
 * and import_state only on the thread that called frugal_ckpt_restore,
 * inside that call. Never on the engine's background thread, never two
 * calls at once, never after frugal_ckpt_unregister of the state or
 * frugal_ckpt_engine_destroy has returned. The engine's lock is held during
 * each call, so neither function may call a function of the same engine
 * (it would deadlock). Neither may let a C++ exception escape; one that
 * does is caught and fails the save or restore with FRUGAL_ERR_INTERNAL.
 */
typedef struct frugal_ckpt_state_fns {
  /** sizeof(frugal_ckpt_state_fns) as built by the caller; at least FRUGAL_CKPT_STATE_FNS_MIN_SIZE. */
  size_t struct_size;
  /**
   * First argument of both functions. Owned by the host: the engine stores
   * the pointer, never dereferences or frees it. It must stay valid until
   * the state is unregistered or the engine destroyed.
   */
  void* user_data;
  /**
   * Not NULL. Serialises the state, with the contract of the kinds'
   * export_state (frugal_router_export_state and the others): sets *size
   * (never NULL) to the state's size in bytes; copies the state into
   * buffer when buffer is not NULL and capacity holds it; when buffer is
   * not NULL and capacity is too small, returns FRUGAL_ERR_OUT_OF_RANGE
   * with *size set. The engine asks for the size first (buffer NULL,
   * capacity 0), then exports into a buffer of that size, once more into a
   * larger one if the state grew in between. NULL means success; an error
   * (made with frugal_error_create; the engine destroys it) fails the save.
   */
  frugal_error* (*export_state)(void* user_data, void* buffer, size_t capacity, size_t* size);
  /**
   * Not NULL. Restores `size` bytes that export_state produced. `data` is
   * never NULL (also when size is 0) and is valid during the call only.
   * NULL means success; an error (made with frugal_error_create) fails the
   * restore, which cannot roll the state back: it should leave the state as
   * it was, as the core objects' import_state does (see frugal_ckpt_restore).
   */
  frugal_error* (*import_state)(void* user_data, const void* data, size_t size);
} frugal_ckpt_state_fns;

/** Bytes of frugal_ckpt_state_fns the engine requires (through `import_state`). */
#define FRUGAL_CKPT_STATE_FNS_MIN_SIZE (offsetof(frugal_ckpt_state_fns, import_state) + sizeof(void*))

/**
 * Registers host state under `name`, saved and restored
 * with the tensors. Each frugal_ckpt_save (and emergency save) of a kind in
 * `kinds` exports it into the snapshot, on the calling thread, with the
 * tensors; the background thread persists it in the checkpoint's shards,
 * with its kinds, size and XXH3-64 checksum (the hash of the shards) in the
 * manifest. A failing export fails that save: nothing of it becomes
 * visible and the previous checkpoints stay as they were. Restore verifies
 * the state with everything else, then imports it (frugal_ckpt_restore).
 * The exported bytes of the checkpoint in flight are held in host memory,
 * beside the snapshot buffer, until it persisted.
 *   name:  shares one namespace with the tensors: the rules of
 *          frugal_ckpt_register, and a name already registered as a tensor
 *          or a state is FRUGAL_ERR_ALREADY_EXISTS. frugal_ckpt_unregister
 *          removes it.
 *   fns:   not NULL, copied; struct_size below FRUGAL_CKPT_STATE_FNS_MIN_SIZE
 *          is FRUGAL_ERR_ABI_MISMATCH; both functions must be set.
 *   kinds: as for frugal_ckpt_register: 0 = every kind, FRUGAL_CKPT_FULL =
 *          full checkpoints only (a heartbeat restore then imports it from
 *          the full checkpoint that supplies the full-only tensors).
 * States are imported in registration order.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_register_state(frugal_ckpt_engine* engine, const char* name,
                                                                     const frugal_ckpt_state_fns* fns, uint32_t kinds);

/**
 * frugal_ckpt_register_state for the core's own stateful
 * objects: the object's export_state / import_state are the functions, so a
 * host writes no trampolines. The object is borrowed, not owned: it must
 * outlive its registration (unregister it, or destroy the engine, before
 * destroying the object). It is used on the threads and in the calls
 * frugal_ckpt_state_fns describes, and none of these objects is safe to
 * use from two threads at once: the host must not use it elsewhere while a
 * save or restore on this engine runs.
 *   router, quantizer, scheduler, scaler: not NULL.
 * A router or quantizer with nothing to save (a stateless strategy) stores
 * an empty state. The scheduler counts each save's export as a checkpoint
 * for its ledger at the moment of the save (frugal_scheduler_export_state),
 * also when that checkpoint later fails to persist.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_register_router(frugal_ckpt_engine* engine, const char* name,
                                                                      frugal_router* router, uint32_t kinds);
/** See frugal_ckpt_register_router. */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_register_quantizer(frugal_ckpt_engine* engine, const char* name,
                                                                         frugal_quantizer* quantizer, uint32_t kinds);
/** See frugal_ckpt_register_router. */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_register_scheduler(frugal_ckpt_engine* engine, const char* name,
                                                                         frugal_scheduler* scheduler, uint32_t kinds);
/** See frugal_ckpt_register_router (frugal_loss_scaler_export_state's bytes are stored). */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_register_loss_scaler(frugal_ckpt_engine* engine, const char* name,
                                                                           frugal_loss_scaler* scaler, uint32_t kinds);

/* ======================================================================== */
/* Saving                                                                   */
/* ======================================================================== */

/** What to save. Caller-owned; read during the call only. */
typedef struct frugal_ckpt_save_args {
  size_t struct_size;   /**< sizeof(frugal_ckpt_save_args). */
  int32_t kind;         /**< FRUGAL_CKPT_HEARTBEAT or FRUGAL_CKPT_FULL. */
  uint32_t flags;       /**< FRUGAL_CKPT_SAVE_* bits. */
  uint64_t step;        /**< Training step the state belongs to. */
  const void* metadata; /**< Host bytes stored with the checkpoint (copied); NULL when metadata_size is 0.
                             With a comm each rank's own (a rank whose bytes equal rank 0's is stored once). */
  size_t metadata_size; /**< Bytes at metadata (host memory), at most 64 MiB; with a comm, the
                             job's (rank 0's plus each that differs) at most 64 MiB too. */
} frugal_ckpt_save_args;

/** Outcome of frugal_ckpt_save. Caller-allocated; struct_size set by the caller. */
typedef struct frugal_ckpt_save_result {
  size_t struct_size;                   /**< Set by the caller. */
  char name[FRUGAL_CKPT_NAME_CAPACITY]; /**< Name of the checkpoint started ("" when skipped). */
  int32_t skipped;                      /**< 1 when SKIP_IF_BUSY dropped the request. */
  int32_t reserved;                     /**< Always 0. */
  size_t bytes;                         /**< Tensor + state + metadata bytes in the snapshot (host memory). */
  double wait_seconds;                  /**< Time spent waiting for the previous persist. */
  double snapshot_seconds;              /**< Time spent copying state (the training stall). */
} frugal_ckpt_save_result;

/**
 * Takes a checkpoint: waits for any in-flight persist (unless
 * SKIP_IF_BUSY), exports every registered state of the kind (in
 * registration order, on this thread), synchronises each CUDA device
 * holding registered state (so queued kernels finish writing it first),
 * snapshots every registered tensor of the kind plus the metadata, and
 * starts persisting in the background (or persists before returning with
 * FRUGAL_CKPT_SAVE_WAIT, returning the persist's error). A state whose
 * export fails, or exceeds FRUGAL_CKPT_STATE_MAX_SIZE, fails the save with
 * the export's code (OUT_OF_RANGE for the size) and a message naming the
 * state; nothing is persisted and the previous checkpoints are untouched.
 *   result: // out, NULL allowed; bytes counts the states too.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_save(frugal_ckpt_engine* engine,
                                                           const frugal_ckpt_save_args* args,
                                                           frugal_ckpt_save_result* result);

/** Outcome of the last persist. Caller-allocated; struct_size set by the caller. */
typedef struct frugal_ckpt_persist_result {
  size_t struct_size;                   /**< Set by the caller. */
  char name[FRUGAL_CKPT_NAME_CAPACITY]; /**< The checkpoint persisted ("" if none since the last wait). */
  uint64_t bytes; /**< Bytes written to the store, manifest included (uint64_t: stored bytes may exceed host memory). */
  double persist_seconds; /**< Wall time of the background persist. */
} frugal_ckpt_persist_result;

/**
 * Blocks until no persist is in flight. Returns the error of the last
 * persist if it failed and that failure was not returned before (the
 * checkpoint then does not exist; earlier ones are intact).
 *   result: // out, NULL allowed.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_wait(frugal_ckpt_engine* engine,
                                                           frugal_ckpt_persist_result* result);

/* ======================================================================== */
/* Inspecting                                                               */
/* ======================================================================== */

/** One checkpoint found in the store. Caller-allocated; struct_size set by the caller. */
typedef struct frugal_ckpt_info {
  size_t struct_size;                   /**< Set by the caller. */
  char name[FRUGAL_CKPT_NAME_CAPACITY]; /**< Checkpoint name (its key prefix under the engine prefix). */
  int32_t kind;                         /**< FRUGAL_CKPT_HEARTBEAT or _FULL (from the name when no manifest). */
  int32_t status;                       /**< frugal_ckpt_status_values. */
  uint64_t step;                        /**< Training step. */
  uint64_t sequence;                    /**< Engine-wide save counter; orders checkpoints of equal step. */
  int64_t created_unix_ns;              /**< When the save started (manifest), 0 if unknown. */
  uint64_t bytes;                       /**< Shard + metadata bytes the manifest declares (stored bytes: uint64_t). */
  uint32_t tensor_count;                /**< Tensors in it (0 when no manifest was read): a sharded tensor
                                             counts once, a rank-local tensor of a job of ranks once per rank. */
  uint32_t state_count; /**< Registered states in it (frugal_ckpt_register_state; 0 when none or no manifest). */
  int32_t emergency;    /**< 1 for an emergency (preemption) heartbeat. */
  char reason[FRUGAL_CKPT_REASON_CAPACITY]; /**< Why it is not VALID ("" when it is). */
  /* Written only by frugal_ckpt_restore (zero elsewhere), and only when the
     caller's struct_size reaches them. */
  char full_source[FRUGAL_CKPT_NAME_CAPACITY]; /**< The full checkpoint the full-only tensors were
                                                    restored from: `name` itself for a full checkpoint, the older
                                                    full one for a heartbeat, "" when none supplied state. */
  uint32_t not_restored_count;                 /**< Registered tensors and states the restore did not
                                                    write (names: frugal_ckpt_restore_report); 0 = everything
                                                    registered was restored. */
  /* Appended in ABI 2.3 (the 2.2 struct ends above): written by every call
     that fills an info, when the caller's struct_size reaches them, so a
     library of ABI 2.2 leaves them as the caller set them. */
  uint32_t world_size; /**< Ranks of the job that wrote it (the engine's comm): 1 for one
                            process; 0 when unknown (no manifest was read). */
  uint32_t reserved;   /**< Always 0. */
} frugal_ckpt_info;

/** Verification depth for listing. */
#define FRUGAL_CKPT_LIST_VERIFY_SHARDS ((uint32_t)1 << 0)

/**
 * Receives one checkpoint during frugal_ckpt_list. `info` is valid during
 * the call only. Return 0 to continue, nonzero to stop.
 */
typedef int32_t (*frugal_ckpt_list_fn)(void* user_data, const frugal_ckpt_info* info);

/**
 * Lists every checkpoint under the engine's prefix, newest first: by
 * sequence, the engine-wide write order (a run resumed from an older step
 * writes newer checkpoints with lower steps); checkpoints sharing a
 * sequence (written before writers were fenced) are all listed, by name. Manifests are always checked;
 * shard sizes and checksums too with FRUGAL_CKPT_LIST_VERIFY_SHARDS (reads
 * every byte).
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_list(frugal_ckpt_engine* engine, uint32_t flags,
                                                           frugal_ckpt_list_fn fn, void* user_data);

/**
 * Fully verifies checkpoint `name` (manifest and every shard).
 *   info: // out, status and reason filled; the call itself fails only for
 *         bad arguments or FRUGAL_ERR_NOT_FOUND.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_verify(frugal_ckpt_engine* engine, const char* name,
                                                             frugal_ckpt_info* info);

/**
 * Finds the newest checkpoint of a kind in `kinds` that fully verifies;
 * every newer one skipped is logged with its reason.
 *   info: // out. FRUGAL_ERR_NOT_FOUND when none verifies (the message
 *         lists what was skipped and why).
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_latest(frugal_ckpt_engine* engine, uint32_t kinds,
                                                             frugal_ckpt_info* info);

/**
 * The manifest of `name` as JSON (shards, tensors, states with their name,
 * kinds, size and placement, metadata size, ...).
 *   json: // out, NUL-terminated, owned by the caller; free with frugal_string_free.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_inspect_json(frugal_ckpt_engine* engine, const char* name,
                                                                   char** json);

/** Frees a string returned by frugal. NULL allowed. */
FRUGAL_API void frugal_string_free(char* text);

/* ======================================================================== */
/* Restoring and retention                                                  */
/* ======================================================================== */

/**
 * Restores a checkpoint into the registered tensors. `name` NULL means the
 * newest that verifies among `kinds` (as frugal_ckpt_latest). Each tensor in
 * the checkpoint must be registered with the same dtype and shape
 * (FRUGAL_ERR_FAILED_PRECONDITION names the first that is not).
 *
 * Full-only tensors (registered with kinds = FRUGAL_CKPT_FULL, e.g.
 * optimizer moments) are not in a heartbeat. Restoring a heartbeat
 * restores them from the newest full checkpoint under the same prefix that
 * was written before it (lower sequence) and fully verifies; invalid ones
 * are skipped, a full checkpoint written after the heartbeat is never
 * used. A full-only tensor is left untouched when no such full checkpoint
 * exists or it does not hold the tensor with the registered dtype and
 * shape; the heartbeat is still restored. Registered tensors that neither
 * supplied (e.g. registered after the save) are left untouched too. Every
 * tensor left untouched is counted in info->not_restored_count, named by
 * frugal_ckpt_restore_report and logged as a warning: a host resuming
 * training should check not_restored_count == 0 (or that the tensors it
 * names may start fresh). info->full_source names the full checkpoint used.
 *
 * States (frugal_ckpt_register_state) follow the same rules: each state the
 * checkpoint holds must be registered (FRUGAL_ERR_FAILED_PRECONDITION names
 * the first that is not); a full-only state missing from a heartbeat comes
 * from the same full checkpoint as the full-only tensors; a registered
 * state that neither supplies is left untouched (import_state not called),
 * counted in not_restored_count and named by frugal_ckpt_restore_report.
 * A checkpoint written before states existed holds none and restores as
 * before.
 *
 * All or nothing: every shard the restore reads (the checkpoint's, and
 * those of the full checkpoint that hold what it supplies) is read and
 * verified, and each state against its own checksum, before any registered
 * tensor is written or any state imported, so a bad checkpoint never leaves
 * state half-restored. A heartbeat restore may hold the supplying full
 * checkpoint's shards in a temporary host buffer beside the snapshot buffer
 * for the duration of the call, and the states' bytes in another.
 *
 * Then, in this order: the tensors are written, the states imported in
 * registration order (on this thread), the metadata copied. A state object
 * cannot be rolled back, so an import that fails ends the restore there
 * with the import's error code and a message naming the checkpoint and the
 * state. At that point every registered tensor holds the checkpoint's bytes,
 * the states registered before the failing one are imported, the failing
 * one is as its import_state left it (the core objects' imports change
 * nothing when they refuse), the later ones are untouched, and metadata,
 * metadata_size, info and the restore report are not written. Restoring
 * again once the cause is fixed (e.g. a scheduler configured as the one
 * saved) rewrites all of it.
 *   metadata:      caller buffer for the host metadata (the heartbeat's when
 *                  a heartbeat is restored), NULL when capacity is 0. Of a
 *                  job's checkpoint: the metadata this rank saved when the
 *                  job that wrote it had as many ranks as the restoring
 *                  one, otherwise rank 0's (every rank's is then available
 *                  from frugal_ckpt_restored_metadata).
 *   capacity:      bytes at metadata; too small -> FRUGAL_ERR_OUT_OF_RANGE
 *                  with *metadata_size set and nothing restored.
 *   metadata_size: // out, NULL allowed: the metadata's size. Written on
 *                  success and with OUT_OF_RANGE only; every other failure
 *                  leaves it (and info) untouched.
 *   info:          // out, NULL allowed: what was restored; full_source and
 *                  not_restored_count are written when info->struct_size
 *                  holds them.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_restore(frugal_ckpt_engine* engine, const char* name,
                                                              uint32_t kinds, void* metadata, size_t capacity,
                                                              size_t* metadata_size, frugal_ckpt_info* info);

/**
 * Names the registered tensors and states that the last
 * successful frugal_ckpt_restore on this engine did not write (see its
 * doc), in registration order (tensors and states interleaved as they were
 * registered): index 0 .. info->not_restored_count - 1. The list
 * stays until the next successful restore; before any, it is empty.
 *   index:    FRUGAL_ERR_OUT_OF_RANGE when index >= not_restored_count.
 *   name:     // out, caller buffer for the NUL-terminated tensor name;
 *             FRUGAL_CKPT_TENSOR_NAME_CAPACITY bytes always suffice.
 *   capacity: bytes at name; too small for the name and its NUL ->
 *             FRUGAL_ERR_OUT_OF_RANGE, name untouched.
 * Thread-safe like every engine function; a restore on another thread
 * meanwhile replaces the list.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_restore_report(frugal_ckpt_engine* engine, uint32_t index,
                                                                     char* name, size_t capacity);

/**
 * The host metadata that one rank of the writing job saved in the
 * checkpoint the last successful frugal_ckpt_restore on this engine
 * restored (ABI 2.3). frugal_ckpt_restore gives each rank its own rank's
 * metadata only when the job that saved had as many ranks (otherwise rank
 * 0's); a job resumed on another number of ranks reads here what any
 * saving rank kept (e.g. to share out its data-loader cursors). Reads
 * nothing from the store; not collective.
 *   rank:          0 .. world_size - 1 of the restored checkpoint (its
 *                  frugal_ckpt_info.world_size; 0 for one process), else
 *                  FRUGAL_ERR_OUT_OF_RANGE.
 *   metadata:      caller buffer, NULL when capacity is 0.
 *   capacity:      bytes at metadata; too small -> FRUGAL_ERR_OUT_OF_RANGE
 *                  with *metadata_size set and nothing copied.
 *   metadata_size: // out, not NULL: that rank's metadata size.
 * FRUGAL_ERR_FAILED_PRECONDITION before any successful restore. The
 * metadata stays until the next successful restore. Thread-safe like
 * every engine function.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_restored_metadata(frugal_ckpt_engine* engine, uint32_t rank,
                                                                        void* metadata, size_t capacity,
                                                                        size_t* metadata_size);

/**
 * Applies retention now (it also runs after every persist): keeps the
 * newest keep_heartbeats valid heartbeats and keep_full valid full
 * checkpoints, removes older valid ones and every invalid one older than
 * the newest valid checkpoint. "Valid" here means the manifest and every
 * shard verified (each checkpoint is read fully at most once per engine;
 * the engine's own commits count as verified). Never touches the
 * checkpoint in flight, anything newer than the newest valid checkpoint,
 * or checkpoints of a newer manifest format.
 *   removed: // out, NULL allowed: checkpoints removed.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_gc(frugal_ckpt_engine* engine, uint32_t* removed);

/* ======================================================================== */
/* Preemption                                                               */
/* ======================================================================== */

/** Outcome of an emergency save. Caller-allocated; struct_size set by the caller. */
typedef struct frugal_ckpt_emergency_result {
  size_t struct_size;                   /**< Set by the caller. */
  char name[FRUGAL_CKPT_NAME_CAPACITY]; /**< The emergency heartbeat's name. */
  int32_t committed;                    /**< 1 when its manifest was durable before the deadline. */
  int32_t reserved;                     /**< Always 0. */
  double seconds;                       /**< From the call to commit (or to the deadline). */
} frugal_ckpt_emergency_result;

/**
 * Takes an emergency heartbeat (args->kind is ignored; the states
 * registered for heartbeats are exported on this thread, as by
 * frugal_ckpt_save) and waits for it at
 * most `deadline_seconds` from the call (e.g. 110 of AWS's 120-second
 * notice, 25 of GCP's 30). Reports whether it committed in time; a save
 * that misses the deadline keeps persisting in the background and, if the
 * process survives, still commits. A persist that fails before the
 * deadline returns its error (e.g. FRUGAL_ERR_IO for a full disk,
 * FRUGAL_ERR_FAILED_PRECONDITION when a newer job claimed the prefix).
 * An in-flight persist is waited for first, within the same deadline.
 * With a comm (collective, like frugal_ckpt_save; the deadline is each
 * rank's own, from its call): the window bounds the agreement and the
 * exchange of the two-phase commit, and the checkpoint commits only if
 * every rank's shards were durable by its deadline. A rank that cannot
 * finish in the window (a previous persist still running, a slow snapshot
 * or disk) makes the save fail or report committed = 0 on every rank,
 * and no rank commits it: the previous checkpoint stays the newest. A
 * rank whose wait timed out leaves the engine's comm broken (as any
 * collective that timed out does): end the process, as a preempted job
 * does anyway.
 *   result: // out, not NULL.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_emergency_save(frugal_ckpt_engine* engine,
                                                                     const frugal_ckpt_save_args* args,
                                                                     double deadline_seconds,
                                                                     frugal_ckpt_emergency_result* result);

/**
 * Opt-in SIGTERM helper, process-wide: installs a handler that only
 * records the notice (async-signal-safe), replacing SIGTERM's default
 * termination. The host polls frugal_preemption_pending at a step boundary,
 * calls frugal_ckpt_emergency_save, then exits. Idempotent. The handler is
 * installed with SA_RESTART and SA_ONSTACK. It replaces the host's own
 * SIGTERM handler: a runtime that watches signals itself (Go's os/signal,
 * Python's signal module) should call frugal_preemption_notify from its
 * own handler instead.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_preemption_install_sigterm(void);

/** Restores the SIGTERM disposition that was in place before install; without a prior install, does nothing. */
FRUGAL_API void frugal_preemption_uninstall_sigterm(void);

/** Nonzero once a preemption notice arrived (SIGTERM or frugal_preemption_notify). */
FRUGAL_API int32_t frugal_preemption_pending(void);

/**
 * Agrees on a preemption notice across the engine's ranks (ABI 2.3), cheap
 * enough to call every step: one all-reduce of one integer. With a comm it
 * is collective, like frugal_ckpt_save (every rank calls it in the same
 * order relative to the engine's other collectives); when any rank had a
 * notice (frugal_preemption_pending), the notice is recorded on every rank
 * and *pending is 1 on every rank, so all ranks take
 * frugal_ckpt_emergency_save at the same step. The comm's timeout bounds
 * it: a rank that never calls makes it fail on the others with the comm's
 * error (the engine's comm is then broken; end the process). Without a
 * comm it reports this process's notice. Without a call, a notice still
 * reaches every rank with the job's next save (see frugal_ckpt_engine_create).
 *   pending: // out, not NULL: 1 when any rank had a notice, else 0.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_ckpt_preemption_agree(frugal_ckpt_engine* engine, int32_t* pending);

/** Records a notice learnt another way (e.g. a cloud metadata poll). Async-signal-safe. */
FRUGAL_API void frugal_preemption_notify(void);

/** Clears a recorded notice. */
FRUGAL_API void frugal_preemption_clear(void);

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_save_args, kind) == 8, ckpt_args_kind);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_save_args, step) == 16, ckpt_args_step);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_save_args, metadata_size) == 32, ckpt_args_metadata_size);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_ckpt_save_args) == 40, ckpt_args_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_slice, ndim) == 8, ckpt_slice_ndim);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_slice, replicated) == 12, ckpt_slice_replicated);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_slice, global_shape) == 16, ckpt_slice_global_shape);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_slice, offsets) == 24, ckpt_slice_offsets);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_ckpt_slice) == 32, ckpt_slice_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_save_result, skipped) == 72, ckpt_save_skipped);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_save_result, snapshot_seconds) == 96, ckpt_save_snapshot);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_ckpt_save_result) == 104, ckpt_save_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_persist_result, bytes) == 72, ckpt_persist_bytes);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_ckpt_persist_result) == 88, ckpt_persist_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_info, kind) == 72, ckpt_info_kind);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_info, step) == 80, ckpt_info_step);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_info, tensor_count) == 112, ckpt_info_tensor_count);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_info, state_count) == 116, ckpt_info_state_count);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_info, emergency) == 120, ckpt_info_emergency);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_info, reason) == 124, ckpt_info_reason);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_info, full_source) == 380, ckpt_info_full_source);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_info, not_restored_count) == 444, ckpt_info_not_restored_count);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_info, world_size) == 448, ckpt_info_world_size);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_ckpt_info) == 456, ckpt_info_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_emergency_result, committed) == 72, ckpt_emergency_committed);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_ckpt_emergency_result) == 88, ckpt_emergency_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_state_fns, user_data) == 8, ckpt_state_fns_user_data);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_state_fns, export_state) == 16, ckpt_state_fns_export);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ckpt_state_fns, import_state) == 24, ckpt_state_fns_import);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_ckpt_state_fns) == 32, ckpt_state_fns_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_CHECKPOINT_H_ */
