/*
 * frugal/quantizer.h — FP8/INT8 quantization (host side).
 *
 * A frugal_quantizer is an instance of a FRUGAL_KIND_QUANTIZER strategy
 * (the built-in one is "quant_fp8"). One quantizer serves one tensor
 * stream — a weight, an activation or a gradient — with one element format
 * and one scaling recipe, and keeps that stream's state: with delayed
 * scaling, each quantize uses the scale derived from earlier amaxes and
 * records this tensor's amax for the next call.
 *
 * Tensors. Inputs and outputs are frugal_tensor views (frugal/tensor.h):
 *   - 1-D tensors are one row; N-D tensors are [prod(leading dims), last]
 *     when the leading dimensions collapse into one stride;
 *   - the last dimension must be contiguous (stride 1); rows may be padded;
 *   - every tensor of a call lives on one device (host or one CUDA device);
 *   - a quantized tensor carries its scales in tensor->quant: scaling_mode,
 *     block_rows and block_cols equal to the quantizer's layout (0 meaning
 *     "the whole dimension"), scale_inv (required), scale and amax
 *     (optional). Scale tensors hold the block grid
 *     [ceil(rows / block_rows), ceil(cols / block_cols)], row-major and
 *     compact; any compact shape with that many elements is accepted, and a
 *     2-D one must be exactly the grid.
 * Anything else is FRUGAL_ERR_UNSUPPORTED (a combination frugal does not
 * handle: dtype, layout, device) or FRUGAL_ERR_INVALID_ARGUMENT (shapes that
 * do not match), with a message naming the tensor and what is wrong.
 *
 * Quantization-aware training. `fake` receives dequantize(quantize(x)) in
 * the input's dtype. The straight-through gradient contract for hosts: the
 * gradient of fake with respect to x is 1 where |x * scale| <= the
 * format's largest finite value (the value was representable after
 * scaling) and 0 where it was clipped; rounding is treated as identity.
 *
 * Thread safety: a quantizer holds mutable recipe state. Calls on one
 * quantizer may run concurrently only when its strategy has
 * FRUGAL_STRATEGY_THREAD_SAFE (quant_fp8's do: they serialise the state
 * update internally). Destroy must not race other calls on the same object.
 */
#ifndef FRUGAL_QUANTIZER_H_
#define FRUGAL_QUANTIZER_H_

#include "frugal/quantizer_vtable.h"
#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Arguments: what a host passes                                            */
/* ======================================================================== */

/*
 * The host's side of each call. Tensors follow the rules at the top of
 * this file (N-D allowed, padded rows, scale tensors of any compact shape
 * with the grid's element count, byte_offset honoured); the core checks
 * them and hands the plugin normalised copies (frugal_quantize_call and the
 * others, frugal/quantizer_vtable.h). Caller-owned, read during the call
 * only (CUDA: the tensors' memory must stay valid until the work queued on
 * `stream` completes). Fields past a smaller struct_size read as 0/NULL.
 */

/** One quantize: input -> output (and output_t, fake). */
typedef struct frugal_quantize_args {
  /** sizeof(frugal_quantize_args); at least through `output`. */
  size_t struct_size;
  /** FLOAT32, BFLOAT16 or FLOAT16, [rows, cols] after collapsing leading dimensions; not NULL. */
  const frugal_tensor* input;
  /**
   * The codes: the input's shape (the same rows x cols), the layout's
   * dtype; not NULL. output->quant is required, with scale_inv (written)
   * and, optionally, scale and amax (written when given), matching the
   * layout; plus the zero point extension for FRUGAL_QUANT_LAYOUT_ZERO_POINT.
   */
  const frugal_tensor* output;
  /**
   * NULL, or [cols, rows] of the layout's dtype: the transpose, written in
   * the same pass (per-tensor recipes only). Its quant is optional: given,
   * it receives the same scales as output's.
   */
  const frugal_tensor* output_t;
  /** NULL, or the input's shape and dtype: receives dequantize(quantize(x)); may be the input itself. */
  const frugal_tensor* fake;
  /** cudaStream_t for CUDA tensors (NULL: the default stream); NULL for host tensors. */
  void* stream;
  /** FRUGAL_QUANTIZE_* bits (quantizer_vtable.h); unknown bits are FRUGAL_ERR_INVALID_ARGUMENT. */
  uint32_t flags;
  /** Set to 0. */
  uint32_t reserved;
} frugal_quantize_args;

/** One dequantize: output = input * scale_inv, per the input's quant meta. */
typedef struct frugal_dequantize_args {
  /** sizeof(frugal_dequantize_args); at least through `output`. */
  size_t struct_size;
  /** Codes of the quantizer's dtype with their quant meta (as quantize wrote it); not NULL. */
  const frugal_tensor* input;
  /** FLOAT32, BFLOAT16 or FLOAT16, the input's shape; not NULL. */
  const frugal_tensor* output;
  /** As in frugal_quantize_args. */
  void* stream;
} frugal_dequantize_args;

/** One GEMM: D = alpha * A * B^T over FP8 operands with per-tensor scales. */
typedef struct frugal_quant_gemm_args {
  /** sizeof(frugal_quant_gemm_args); at least through `d`. */
  size_t struct_size;
  /** [m, k], E4M3FN or E5M2, with per-tensor quant meta holding scale_inv; not NULL. */
  const frugal_tensor* a;
  /** [n, k], E4M3FN or E5M2 (not both operands E5M2), like `a`; not NULL. */
  const frugal_tensor* b;
  /**
   * [m, n]: FLOAT32 or BFLOAT16; or FP8 with quant holding `scale` (one
   * fp32: D is multiplied by it before the cast), optionally `amax`
   * (receives D's amax before scaling) and `scale_inv` (left to the host).
   * Not NULL.
   */
  const frugal_tensor* d;
  /** As in frugal_quantize_args. */
  void* stream;
  /** Multiplies the product; finite. A struct_size that ends before it means 1. */
  float alpha;
  /** FRUGAL_GEMM_* bits (quantizer_vtable.h); unknown bits are FRUGAL_ERR_INVALID_ARGUMENT. */
  uint32_t flags;
} frugal_quant_gemm_args;

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantize_args, input) == 8, quantize_input);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantize_args, output) == 16, quantize_output);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantize_args, output_t) == 24, quantize_output_t);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantize_args, fake) == 32, quantize_fake);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantize_args, stream) == 40, quantize_stream);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantize_args, flags) == 48, quantize_flags);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_quantize_args) == 56, quantize_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dequantize_args, input) == 8, dequantize_input);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dequantize_args, output) == 16, dequantize_output);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dequantize_args, stream) == 24, dequantize_stream);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_dequantize_args) == 32, dequantize_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_gemm_args, a) == 8, gemm_a);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_gemm_args, b) == 16, gemm_b);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_gemm_args, d) == 24, gemm_d);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_gemm_args, stream) == 32, gemm_stream);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_gemm_args, alpha) == 40, gemm_alpha);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_gemm_args, flags) == 44, gemm_flags);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_quant_gemm_args) == 48, gemm_size);
#endif

/* ======================================================================== */
/* Quantizers                                                               */
/* ======================================================================== */

/** A quantizer instance; owned by its creator, destroyed with frugal_quantizer_destroy. */
typedef struct frugal_quantizer frugal_quantizer;

/**
 * Creates a quantizer. It does not reference the context afterwards.
 *   context: not NULL; a context with the providing plugin loaded.
 *   name:    not NULL; "name" or "plugin/name".
 *   options: the strategy's options, NULL for defaults; read during the
 *            call only. quant_fp8's: format (e4m3 | e5m2 | int8 |
 *            int8_asym), recipe (delayed | current | per_channel | block |
 *            mx), saturate, history, reduction (max | most_recent), margin,
 *            axis (rows | cols), block_rows, block_cols, threads.
 *   out:     // out, not NULL; owned by the caller.
 * Errors from the plugin are prefixed with "quantizer 'name': ".
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_quantizer_create(frugal_context* context, const char* name,
                                                                  const frugal_options* options,
                                                                  frugal_quantizer** out);

/**
 * What the quantizer produces: element dtype, scaling mode, block shape and
 * scale dtype, for filling frugal_quant_meta.
 *   out: // out, not NULL; the caller sets struct_size, the core fills up to it.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_quantizer_layout(const frugal_quantizer* quantizer,
                                                                  frugal_quant_layout* out);

/**
 * The scale grid for a [rows, cols] input: shape[0] x shape[1] scales.
 *   rows, cols: >= 1.
 *   shape:      // out, not NULL; 2 entries.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_quantizer_scale_shape(const frugal_quantizer* quantizer, int64_t rows,
                                                                       int64_t cols, int64_t* shape);

/**
 * Quantizes. output is required (with quant and its scale_inv); output_t
 * (per-tensor recipes only) and fake are optional. Host tensors complete
 * before return; CUDA tensors are queued on args->stream, except that a
 * delayed-scaling update reads the amax back and so waits for the stream.
 *   args: not NULL; struct_size set; read during the call only.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_quantizer_quantize(frugal_quantizer* quantizer,
                                                                    const frugal_quantize_args* args);

/**
 * Dequantizes args->input (codes with their quant meta) into args->output
 * (fp32, bf16 or fp16), same shape. Host tensors complete before return;
 * CUDA tensors are queued on args->stream.
 *   args: not NULL; struct_size set; read during the call only.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_quantizer_dequantize(frugal_quantizer* quantizer,
                                                                      const frugal_dequantize_args* args);

/**
 * D = alpha * A * B^T over FP8 operands with per-tensor scales, fp32
 * accumulation (frugal_quant_gemm_args). FRUGAL_ERR_UNIMPLEMENTED when the
 * strategy has no GEMM; FRUGAL_ERR_UNSUPPORTED when it has none for these
 * operands (block-scaled operands, their device, their dtypes).
 *   args: not NULL; struct_size set.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_quantizer_gemm(frugal_quantizer* quantizer,
                                                                const frugal_quant_gemm_args* args);

/**
 * Serialises the recipe state (checkpoint it with the model).
 *   buffer: capacity bytes, or NULL (with capacity 0) to query the size.
 *   size:   // out, not NULL: the state's size in bytes. When capacity is
 *           too small: FRUGAL_ERR_OUT_OF_RANGE and *size set.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_quantizer_export_state(frugal_quantizer* quantizer, void* buffer,
                                                                        size_t capacity, size_t* size);

/**
 * Restores a state exported by a quantizer with the same options. A
 * truncated, corrupt or mismatched blob is an error naming what is wrong,
 * and leaves the current state as it was.
 *   data: not NULL unless size is 0.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_quantizer_import_state(frugal_quantizer* quantizer, const void* data,
                                                                        size_t size);

/** Destroys a quantizer; may unload its plugin if nothing else uses it. NULL allowed. */
FRUGAL_API void frugal_quantizer_destroy(frugal_quantizer* quantizer);

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_QUANTIZER_H_ */
