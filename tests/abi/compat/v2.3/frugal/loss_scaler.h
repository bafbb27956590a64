/*
 * frugal/loss_scaler.h — dynamic loss scaling for FP16 and FP8 training.
 *
 * The semantics of PyTorch's GradScaler, with Megatron's floor and a
 * ceiling: multiply the loss by the scale before backward and the
 * gradients by 1/scale before the optimizer step; after each step report
 * whether any gradient was NaN or Inf:
 *   - overflow: skip the step; scale = max(scale * backoff, min_scale); the
 *     clean-step counter resets;
 *   - otherwise: the counter grows; after growth_interval clean steps,
 *     scale = min(scale * growth, max_scale) and the counter resets.
 * Pure host arithmetic, identical for every quantizer, so it lives in the
 * core rather than in a plugin.
 *
 * Checkpoints: frugal_ckpt_register_loss_scaler saves and restores a
 * scaler with the checkpoint engine (its bytes are
 * frugal_loss_scaler_export_state's). "State" means those bytes, as for
 * every kind; get_status / set_status read and write the same values as a
 * struct (frugal_loss_scaler_status).
 *
 * Thread safety: not thread-safe; the caller serialises calls on one scaler.
 */
#ifndef FRUGAL_LOSS_SCALER_H_
#define FRUGAL_LOSS_SCALER_H_

#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Loss scaler                                                              */
/* ======================================================================== */

/** A loss scaler; owned by its creator, destroyed with frugal_loss_scaler_destroy. */
typedef struct frugal_loss_scaler frugal_loss_scaler;

/** A scaler's scale and step counters, as a struct. Caller sets struct_size. */
typedef struct frugal_loss_scaler_status {
  /** sizeof(frugal_loss_scaler_status) as built by the caller. */
  size_t struct_size;
  /** Current scale, in [min_scale, max_scale]. */
  double scale;
  /** Clean steps since the last growth or overflow, in [0, growth_interval). */
  int64_t clean_steps;
  /** Steps skipped for overflow so far, >= 0. */
  int64_t skipped_steps;
} frugal_loss_scaler_status;

/**
 * Creates a scaler.
 *   options: NULL for the defaults, or any of: init_scale (double, 65536),
 *            growth_factor (> 1, 2), backoff_factor (in (0, 1), 0.5),
 *            growth_interval (int >= 1, 2000), min_scale (> 0, 1),
 *            max_scale (finite, 2^24), with
 *            min_scale <= init_scale <= max_scale. An unknown or bad option
 *            is FRUGAL_ERR_INVALID_ARGUMENT naming it.
 *   out:     // out, not NULL; owned by the caller.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_loss_scaler_create(const frugal_options* options,
                                                                    frugal_loss_scaler** out);

/** The current scale (multiply the loss by it). scaler: not NULL. */
FRUGAL_API double frugal_loss_scaler_scale(const frugal_loss_scaler* scaler);

/**
 * Reports the step's outcome and updates the scale.
 *   found_inf:  non-zero when any gradient was NaN or Inf.
 *   apply_step: // out, NULL allowed: 1 when the optimizer step may be
 *               applied, 0 when it must be skipped.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_loss_scaler_update(frugal_loss_scaler* scaler, int32_t found_inf,
                                                                    int32_t* apply_step);

/** Reads the status. out: // out, not NULL; the caller sets struct_size. */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_loss_scaler_get_status(const frugal_loss_scaler* scaler,
                                                                        frugal_loss_scaler_status* out);

/**
 * Restores a status (e.g. one get_status read). A status outside the
 * scaler's configuration is FRUGAL_ERR_INVALID_ARGUMENT and changes nothing.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_loss_scaler_set_status(frugal_loss_scaler* scaler,
                                                                        const frugal_loss_scaler_status* status);

/**
 * Serialises the state as bytes, with the contract of the
 * other kinds' export_state (and of frugal_ckpt_state_fns): a versioned,
 * checksummed blob ("FRLS", format 1: the scale, clean_steps and
 * skipped_steps, then an XXH3-64 of what precedes it), 40 bytes today.
 *   buffer: capacity bytes, or NULL (with capacity 0) to query the size.
 *   size:   // out, not NULL: the blob's size. When buffer is not NULL and
 *           capacity is too small: FRUGAL_ERR_OUT_OF_RANGE with *size set
 *           and nothing written.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_loss_scaler_export_state(const frugal_loss_scaler* scaler,
                                                                          void* buffer, size_t capacity, size_t* size);

/**
 * Restores a blob of frugal_loss_scaler_export_state. Every
 * field is checked before any is taken, against this scaler's
 * configuration as frugal_loss_scaler_set_status checks it: the scale finite
 * and in [min_scale, max_scale], clean_steps in [0, growth_interval),
 * skipped_steps >= 0. A blob that is truncated, of another kind (magic), or
 * whose checksum or a field fails is FRUGAL_ERR_DATA_CORRUPTED naming what
 * is wrong (the field and its value); a newer format is
 * FRUGAL_ERR_UNSUPPORTED. A refused blob changes nothing.
 *   data: not NULL unless size is 0.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_loss_scaler_import_state(frugal_loss_scaler* scaler, const void* data,
                                                                          size_t size);

/** Destroys a scaler. NULL allowed. */
FRUGAL_API void frugal_loss_scaler_destroy(frugal_loss_scaler* scaler);

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_loss_scaler_status, scale) == 8, loss_scaler_scale);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_loss_scaler_status, clean_steps) == 16, loss_scaler_clean);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_loss_scaler_status, skipped_steps) == 24, loss_scaler_skipped);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_loss_scaler_status) == 32, loss_scaler_status_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_LOSS_SCALER_H_ */
