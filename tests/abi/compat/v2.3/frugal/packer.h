/*
 * frugal/packer.h — sequence packing (host side).
 *
 * A frugal_packer is an instance of a FRUGAL_KIND_PACKER strategy. It turns
 * sequence lengths into a frugal_pack_plan: every sequence assigned to
 * exactly one pack (a row of max_len tokens), plus, per pack, everything a
 * training step needs to keep attention inside each sequence:
 *   - cu_seqlens (int32, n+1 entries from 0) and max_seqlen, the
 *     flash-attention "varlen" format;
 *   - position ids restarting at 0 per sequence;
 *   - segment ids (1..n, 0 for padding);
 *   - on request, a dense block-diagonal causal mask;
 *   - a gather building the packed token and label rows from the caller's
 *     arrays, masking each sequence's first label (as Hugging Face's
 *     flattening collator does, so no token is trained to predict across a
 *     boundary).
 *
 * Units. Sequences longer than max_len follow the packer's "overlong"
 * option: "error" (the default) refuses them, "truncate" keeps their first
 * max_len tokens (the plan's stats count what was cut), "split" cuts them
 * into ceil(len / max_len) pieces packed independently. What gets packed
 * is a "unit": a sequence, or a piece of one. Nothing is dropped silently.
 *
 * Streaming. A frugal_pack_stream packs sequences as a loader produces
 * them, holding at most `window` units: when the window is full it packs
 * them, hands out the fullest packs and keeps the emptiest (at most half
 * the window) to combine with later arrivals. A unit is handed out after
 * at most `max_rounds` packing rounds.
 *
 * Thread safety: a plan is immutable: any number of threads may read one.
 * frugal_packer_pack may run concurrently on one packer only when its
 * strategy has FRUGAL_STRATEGY_THREAD_SAFE (packer_seq's do). A stream is
 * not thread-safe: the caller serialises calls on it. Destroy calls must not
 * race other calls on the same object.
 */
#ifndef FRUGAL_PACKER_H_
#define FRUGAL_PACKER_H_

#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Objects                                                                  */
/* ======================================================================== */

/** A packer instance; owned by its creator, destroyed with frugal_packer_destroy. */
typedef struct frugal_packer frugal_packer;

/** The result of one packing: immutable; destroyed with frugal_pack_plan_destroy. */
typedef struct frugal_pack_plan frugal_pack_plan;

/** A streaming packer over a frugal_packer; destroyed with frugal_pack_stream_destroy. */
typedef struct frugal_pack_stream frugal_pack_stream;

/* ======================================================================== */
/* Packers                                                                  */
/* ======================================================================== */

/**
 * Creates a packer. It does not reference the context afterwards.
 *   context: not NULL; a context with the providing plugin loaded.
 *   name:    not NULL; strategy name, "name" or "plugin/name" (the built-in
 *            one is "packer_seq").
 *   options: not NULL; read during the call only. The core reads:
 *              max_len       int, required, > 0: tokens per pack;
 *              max_per_pack  int, >= 0, default 0 (unlimited): units per pack;
 *              overlong      string "error" (default), "truncate" or "split";
 *              seed          int, default 0: for strategies with random choices.
 *            Every other option goes to the strategy (packer_seq: "algo").
 *   out:     // out, not NULL; owned by the caller.
 * Errors from the plugin are prefixed with "packer 'name': ".
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_packer_create(frugal_context* context, const char* name,
                                                               const frugal_options* options, frugal_packer** out);

/**
 * Packs `count` sequences; sequence i has lengths[i] tokens and id i.
 *   packer:  not NULL.
 *   lengths: not NULL when count > 0; read during the call only. Every
 *            length must be >= 1 (FRUGAL_ERR_INVALID_ARGUMENT names the
 *            first bad one); count == 0 is FRUGAL_ERR_INVALID_ARGUMENT.
 *   out:     // out, not NULL; owned by the caller.
 * Before anything is allocated the units (a sequence split under overlong
 * = "split" is ceil(length / max_len) of them) are counted against
 * min(2^40, available memory / 128 bytes per unit), available memory being
 * MemAvailable in /proc/meminfo (else the free pages): over it is
 * FRUGAL_ERR_OUT_OF_MEMORY naming the sequence that crossed it and the
 * limit. Lengths summing past INT64_MAX are FRUGAL_ERR_OUT_OF_RANGE. An
 * allocation that fails anyway is FRUGAL_ERR_OUT_OF_MEMORY, never a crash.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_packer_pack(frugal_packer* packer, const int64_t* lengths,
                                                             size_t count, frugal_pack_plan** out);

/**
 * Packs a length histogram: counts[b] sequences of lengths[b] tokens. The
 * sequences are numbered in bin order: bin 0's get ids 0..counts[0]-1, and
 * so on. Lengths must be >= 1, counts >= 0 with a positive sum, and a
 * length may appear in several bins.
 *   lengths, counts: not NULL, `bins` entries each; read during the call.
 *   out: // out, not NULL; owned by the caller.
 * The plan lists every unit, so memory grows with the counts' sum: the
 * same budget as frugal_packer_pack is checked bin by bin first (the
 * error names the bin, its length and count), and at most 2^40 sequences.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_packer_pack_histogram(frugal_packer* packer, const int64_t* lengths,
                                                                       const int64_t* counts, size_t bins,
                                                                       frugal_pack_plan** out);

/**
 * Destroys a packer; may unload its plugin if nothing else uses it. Plans
 * and streams made from it stay valid (a stream keeps its packer's strategy
 * alive). NULL allowed.
 */
FRUGAL_API void frugal_packer_destroy(frugal_packer* packer);

/* ======================================================================== */
/* Plans                                                                    */
/* ======================================================================== */

/** Statistics of a plan. Caller sets struct_size; the core fills up to it. */
typedef struct frugal_pack_stats {
  /** Set by the caller to sizeof(frugal_pack_stats). */
  size_t struct_size;
  /** Packs (rows) in the plan. */
  int64_t packs;
  /** Units packed (sequences, or pieces of split ones). */
  int64_t units;
  /** Sequences with at least one unit in the plan. */
  int64_t sequences;
  /** Tokens packed (after truncation). */
  int64_t real_tokens;
  /** The packer's max_len. */
  int64_t max_len;
  /** ceil(real_tokens / max_len): no packing can use fewer packs. */
  int64_t lower_bound;
  /**
   * A bound at least as tight, still valid: also ceil(units / max_per_pack)
   * when limited, and Martello and Toth's L2 (units longer than max_len / 2
   * need packs of their own; shorter ones fill only their leftover room),
   * with its unit-count analogue when limited.
   */
  int64_t lower_bound_tight;
  /** real_tokens / (packs * max_len); 0 for a plan without packs. */
  double efficiency;
  /** Padding share with one row per unit: 1 - real_tokens / (units * max_len). */
  double padding_before;
  /** Padding share after packing: 1 - efficiency. */
  double padding_after;
  /** Rows before / rows after: units / packs (the compute saved per step). */
  double speedup;
  /** Sequences shortened by overlong = "truncate", and the tokens cut. */
  int64_t truncated_sequences;
  int64_t truncated_tokens;
  /** Sequences cut into pieces by overlong = "split". */
  int64_t split_sequences;
  /** The method that produced the plan ("ffd", ...); valid while the plan lives. */
  const char* method;
} frugal_pack_stats;

/**
 * The whole assignment as flat arrays, for bulk consumers. Every pointer is
 * owned by the plan and valid until the plan is destroyed; it is non-NULL
 * whenever its entry count is > 0 (pack_offsets always).
 */
typedef struct frugal_pack_plan_view {
  /** Set by the caller to sizeof(frugal_pack_plan_view). */
  size_t struct_size;
  /** Packs in the plan. */
  size_t pack_count;
  /** Units in the plan. */
  size_t unit_count;
  /** pack_count + 1 entries: pack p holds units [pack_offsets[p], pack_offsets[p+1]). */
  const int64_t* pack_offsets;
  /** unit_count entries, grouped by pack, in row order: each unit's sequence id. */
  const int64_t* sequence_ids;
  /** unit_count entries: each unit's first token within its sequence (0 unless split). */
  const int64_t* token_offsets;
  /** unit_count entries: each unit's tokens. */
  const int64_t* unit_lengths;
  /** pack_count entries: real tokens in each pack. */
  const int64_t* pack_tokens;
} frugal_pack_plan_view;

/**
 * Fills `stats` (honouring stats->struct_size).
 *   plan: not NULL.  stats: // out, not NULL.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_pack_plan_stats(const frugal_pack_plan* plan,
                                                                 frugal_pack_stats* stats);

/**
 * Fills `view` (honouring view->struct_size).
 *   plan: not NULL.  view: // out, not NULL.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_pack_plan_view_get(const frugal_pack_plan* plan,
                                                                    frugal_pack_plan_view* view);

/**
 * The flash-attention varlen description of pack `pack`.
 *   cu_seqlens: // out, not NULL; `capacity` entries, at least units in the
 *               pack + 1 (FRUGAL_ERR_OUT_OF_RANGE otherwise): receives 0,
 *               len0, len0+len1, ... (int32: max_len must fit).
 *   written:    // out, may be NULL: entries written (units + 1).
 *   max_seqlen: // out, may be NULL: the longest unit in the pack.
 * FRUGAL_ERR_OUT_OF_RANGE when pack >= pack_count.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_pack_plan_varlen(const frugal_pack_plan* plan, size_t pack,
                                                                  int32_t* cu_seqlens, size_t capacity, size_t* written,
                                                                  int32_t* max_seqlen);

/**
 * Position ids of pack `pack` as a row of `length` tokens (length >= the
 * pack's real tokens, usually max_len): 0, 1, ... restarting at each unit;
 * 0 in the padding after the last unit.
 *   out: // out, not NULL, `length` entries.
 * FRUGAL_ERR_OUT_OF_RANGE when pack >= pack_count or length is below the
 * pack's real tokens.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_pack_plan_position_ids(const frugal_pack_plan* plan, size_t pack,
                                                                        int64_t* out, size_t length);

/**
 * Segment ids of pack `pack` as a row of `length` tokens: k+1 for every
 * token of the pack's k-th unit (k from 0), 0 for padding.
 *   out: // out, not NULL, `length` entries.
 * FRUGAL_ERR_OUT_OF_RANGE as for frugal_pack_plan_position_ids.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_pack_plan_segment_ids(const frugal_pack_plan* plan, size_t pack,
                                                                       int32_t* out, size_t length);

/**
 * The dense block-diagonal causal mask of pack `pack`, row-major side x
 * side (side >= the pack's real tokens): out[q * side + k] = 1 when query q
 * may attend to key k: both in the same unit and k <= q. A padding position
 * attends only to itself (so no softmax row is empty) and no real token
 * sees padding. Costs side^2 bytes: prefer cu_seqlens where the kernel
 * takes it.
 *   out: // out, not NULL, side * side entries.
 * FRUGAL_ERR_OUT_OF_RANGE when pack >= pack_count or side is below the
 * pack's real tokens.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_pack_plan_mask(const frugal_pack_plan* plan, size_t pack, uint8_t* out,
                                                                size_t side);

/** Arguments of frugal_pack_plan_gather. Caller-owned; read during the call. */
typedef struct frugal_pack_gather_args {
  /** Set by the caller to sizeof(frugal_pack_gather_args). */
  size_t struct_size;
  /** All sequences' token ids, back to back; not NULL. */
  const int64_t* tokens;
  /**
   * sequence_count + 1 entries, not NULL: sequence s is tokens[
   * sequence_offsets[s] .. sequence_offsets[s+1]); non-decreasing. The
   * plan's sequence ids index this array. The core has no length for
   * `tokens` and `labels`: the caller guarantees every offset lies inside
   * them (the language bindings check it before the call).
   */
  const int64_t* sequence_offsets;
  /** Number of sequences described by sequence_offsets. */
  size_t sequence_count;
  /** Labels in the layout of `tokens`; NULL means the labels are the tokens. */
  const int64_t* labels;
  /** // out, not NULL: out_length packed token ids (padding = pad_token). */
  int64_t* out_tokens;
  /** // out, may be NULL (no labels wanted): out_length packed labels. */
  int64_t* out_labels;
  /** Entries in out_tokens (and out_labels); >= the pack's real tokens. */
  size_t out_length;
  /** Token id written into padding positions. */
  int64_t pad_token;
  /** Label of padding positions and of masked first tokens; -100 in PyTorch's losses. */
  int64_t ignore_index;
  /** Nonzero: each unit's first label is ignore_index. Zero: labels copied as they are. */
  int32_t mask_first_label;
} frugal_pack_gather_args;

/**
 * Builds the packed token (and label) row of pack `pack` from the caller's
 * arrays. FRUGAL_ERR_INVALID_ARGUMENT when a sequence id is not below
 * sequence_count or a sequence in the arrays is shorter than the plan
 * expects (it names the sequence and both lengths);
 * FRUGAL_ERR_OUT_OF_RANGE when pack >= pack_count or out_length is below
 * the pack's real tokens.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_pack_plan_gather(const frugal_pack_plan* plan, size_t pack,
                                                                  const frugal_pack_gather_args* args);

/** Destroys a plan. NULL allowed. */
FRUGAL_API void frugal_pack_plan_destroy(frugal_pack_plan* plan);

/* ======================================================================== */
/* Streams                                                                  */
/* ======================================================================== */

/**
 * Creates a stream packing with `packer`'s strategy and limits.
 *   packer:  not NULL; the stream keeps what it needs, so the packer may be
 *            destroyed first.
 *   options: may be NULL; read during the call only:
 *              window      int, >= 1, default 4096: units held at most;
 *              max_rounds  int, >= 1, default 4: packing rounds a unit may
 *                          wait before it is handed out regardless.
 *   out:     // out, not NULL.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_pack_stream_create(frugal_packer* packer,
                                                                    const frugal_options* options,
                                                                    frugal_pack_stream** out);

/**
 * Adds sequence `sequence_id` (any value the caller chooses, e.g. its
 * dataset index; gather needs it to index the caller's arrays) of `length`
 * tokens. The overlong policy applies (a split sequence adds several
 * units, checked against frugal_packer_pack's memory budget together with
 * the units held and ready). Packs when the window fills; a packing error
 * is returned here and leaves the window as it was.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_pack_stream_push(frugal_pack_stream* stream, int64_t sequence_id,
                                                                  int64_t length);

/**
 * Packs everything still held (e.g. at the end of an epoch), so that the
 * next pop hands out every unit pushed so far. The stream stays usable.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_pack_stream_flush(frugal_pack_stream* stream);

/**
 * Takes the packs ready so far as a plan (possibly with zero packs); its
 * stats cover those packs only.
 *   out: // out, not NULL; owned by the caller.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_pack_stream_pop(frugal_pack_stream* stream, frugal_pack_plan** out);

/**
 * Units held in the window, and packs ready to pop.
 *   held, ready: // out, each may be NULL.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_pack_stream_pending(const frugal_pack_stream* stream, size_t* held,
                                                                     size_t* ready);

/** Destroys a stream; held units are discarded. NULL allowed. */
FRUGAL_API void frugal_pack_stream_destroy(frugal_pack_stream* stream);

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_stats, packs) == 8, pack_stats_packs);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_stats, efficiency) == 64, pack_stats_efficiency);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_stats, truncated_sequences) == 96, pack_stats_truncated);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_stats, method) == 120, pack_stats_method);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_pack_stats) == 128, pack_stats_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_plan_view, pack_offsets) == 24, pack_view_offsets);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_plan_view, pack_tokens) == 56, pack_view_tokens);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_pack_plan_view) == 64, pack_view_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_gather_args, labels) == 32, pack_gather_labels);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_gather_args, out_length) == 56, pack_gather_out_length);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_pack_gather_args, mask_first_label) == 80, pack_gather_mask_first);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_pack_gather_args) == 88, pack_gather_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_PACKER_H_ */
