/*
 * frugal/quantizer_vtable.h — the vtable of FRUGAL_KIND_QUANTIZER
 * strategies: FP8/INT8 quantizers, implemented by plugins and called by the
 * core.
 *
 * A quantizer instance quantizes one tensor stream (a weight, an
 * activation or a gradient) with one element format and one scaling
 * recipe, and keeps that stream's state (e.g. a delayed-scaling amax
 * history). The split of work:
 *   - the core validates every tensor of the host's arguments
 *     (frugal/quantizer.h) before the plugin sees it (dtype, shape,
 *     strides, device, and the shape of every scale tensor against the
 *     instance's layout) and hands the plugin its own structs (the
 *     frugal_*_call types below) holding 2-D views only: shape
 *     [rows, cols], strides never NULL with strides[1] == 1, byte_offset
 *     folded into data. A plugin never sees an N-D or non-unit-stride
 *     tensor, nor a mismatched scale tensor;
 *   - the plugin owns the arithmetic: scales, conversions, kernels, the
 *     recipe state and the GEMM.
 *
 * Conventions (Transformer Engine's, as in frugal/tensor.h):
 * quantized = x * scale, x ~= quantized * scale_inv. Scale tensors are
 * row-major over the block grid [ceil(rows / br), ceil(cols / bc)], where a
 * block extent of 0 means the whole dimension (so per-tensor scaling has a
 * 1 x 1 grid and per-row scaling a rows x 1 grid).
 *
 * Declares no function; safe for plugins.
 */
#ifndef FRUGAL_QUANTIZER_VTABLE_H_
#define FRUGAL_QUANTIZER_VTABLE_H_

#include "frugal/plugin.h"
#include "frugal/tensor.h"
#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Layout                                                                   */
/* ======================================================================== */

/** frugal_quant_layout.flags: outputs carry an int8 zero point (asymmetric INT8). */
#define FRUGAL_QUANT_LAYOUT_ZERO_POINT ((uint32_t)1 << 0)

/**
 * What an instance produces, fixed at creation. The core derives every
 * scale-tensor shape from it and checks hosts' tensors against it.
 */
typedef struct frugal_quant_layout {
  /** sizeof(frugal_quant_layout) as built by the caller; the callee fills up to it. */
  size_t struct_size;
  /** Element dtype of quantized outputs: FRUGAL_DTYPE_FLOAT8_E4M3FN, _E5M2 or _INT8. */
  int32_t dtype;
  /** One of frugal_scaling_mode_values, never FRUGAL_SCALING_NONE. */
  int32_t scaling_mode;
  /** Rows per scale block, >= 0; 0 means all rows. */
  int32_t block_rows;
  /** Columns per scale block, >= 0; 0 means all columns. */
  int32_t block_cols;
  /** dtype of scale and scale_inv tensors: FRUGAL_DTYPE_FLOAT32, or _FLOAT8_E8M0FNU for MX. */
  int32_t scale_dtype;
  /** FRUGAL_QUANT_LAYOUT_* bits. */
  uint32_t flags;
} frugal_quant_layout;

/* ======================================================================== */
/* Extensions                                                               */
/* ======================================================================== */

/**
 * Chained on a frugal_quant_meta's ext by layouts with
 * FRUGAL_QUANT_LAYOUT_ZERO_POINT: asymmetric INT8 codes mean
 * x ~= (q - zero_point) * scale_inv. Owned like the meta it hangs on.
 */
typedef struct frugal_quant_zero_point_ext {
  /** type == FRUGAL_EXT_QUANT_ZERO_POINT. */
  frugal_ext_header header;
  /** int8, the scale grid's shape; written by quantize, read by dequantize. */
  const frugal_tensor* zero_point;
} frugal_quant_zero_point_ext;

/* ======================================================================== */
/* Calls: what the core hands the plugin                                    */
/* ======================================================================== */

/*
 * Hosts pass the argument structs of frugal/quantizer.h (frugal_quantize_args
 * and the others: N-D tensors, padded rows, scale tensors of any compact
 * shape with the grid's element count). The core checks them and passes the
 * plugin the structs below instead, with a second contract: every tensor is
 * a 2-D view [rows, cols], strides never NULL with strides[1] == 1,
 * byte_offset folded into data (always 0), and every scale tensor exactly
 * the layout's grid. The two share field names and order, never the type.
 */

/** frugal_quantize_args.flags / frugal_quantize_call.flags: use the current scale, do not record this amax (e.g.
 * evaluation). */
#define FRUGAL_QUANTIZE_FREEZE_SCALE ((uint32_t)1 << 0)

/**
 * One quantize call as the plugin receives it. Tensors are core-normalised
 * 2-D views (above); every tensor shares one device. Built by the core,
 * valid during the call only (CUDA: until the work queued on `stream`
 * completes).
 */
typedef struct frugal_quantize_call {
  /** sizeof(frugal_quantize_call) as built by the core. */
  size_t struct_size;
  /** [rows, cols], FLOAT32, BFLOAT16 or FLOAT16; never NULL. */
  const frugal_tensor* input;
  /**
   * [rows, cols] of the layout's dtype; never NULL. output->quant is never
   * NULL: write scale_inv (always present), scale (when not NULL), amax
   * (when not NULL: the amax of the whole input, fp32, one element), and
   * the zero point extension when the layout has one.
   */
  const frugal_tensor* output;
  /**
   * [cols, rows], the layout's dtype, or NULL: the transpose of `output`,
   * written in the same pass (the TN operand Hopper's FP8 GEMM needs).
   * Only for per-tensor scaling. Its quant, when not NULL, names scale
   * tensors to fill with the same values as output's.
   */
  const frugal_tensor* output_t;
  /**
   * [rows, cols] of the input's dtype, or NULL: dequantize(quantize(x)),
   * for quantization-aware training. May be the input itself (in place).
   */
  const frugal_tensor* fake;
  /** cudaStream_t for CUDA tensors (NULL: the default stream); NULL for host tensors. */
  void* stream;
  /** FRUGAL_QUANTIZE_* bits, only known ones (the core refuses others). */
  uint32_t flags;
  /** Padding; the core sets 0. */
  uint32_t reserved;
} frugal_quantize_call;

/** One dequantize call as the plugin receives it: output = input * scale_inv (per the input's quant meta). */
typedef struct frugal_dequantize_call {
  /** sizeof(frugal_dequantize_call) as built by the core. */
  size_t struct_size;
  /** [rows, cols] quantized codes; input->quant is never NULL and matches the instance's layout. */
  const frugal_tensor* input;
  /** [rows, cols], FLOAT32, BFLOAT16 or FLOAT16; never NULL. */
  const frugal_tensor* output;
  /** As in frugal_quantize_call. */
  void* stream;
} frugal_dequantize_call;

/** frugal_quant_gemm_args.flags / frugal_quant_gemm_call.flags: Hopper's fast FP8 accumulation (fewer promotions to
 * fp32; less exact). */
#define FRUGAL_GEMM_FAST_ACCUM ((uint32_t)1 << 0)

/**
 * One GEMM as the plugin receives it: D = alpha * A * B^T ("TN": both
 * operands row-major with K contiguous), fp32 accumulation. A and B are FP8
 * with per-tensor scaling; their scale_inv tensors are the dequantization
 * factors. Tensors are core-normalised 2-D views.
 */
typedef struct frugal_quant_gemm_call {
  /** sizeof(frugal_quant_gemm_call) as built by the core. */
  size_t struct_size;
  /** [m, k], E4M3FN or E5M2, quant per-tensor with scale_inv; never NULL. */
  const frugal_tensor* a;
  /** [n, k], E4M3FN or E5M2 (not both E5M2), quant per-tensor with scale_inv; never NULL. */
  const frugal_tensor* b;
  /**
   * [m, n]; FLOAT32 or BFLOAT16, or FP8 with quant: D is multiplied by
   * quant->scale (fp32, one element) before the cast, and quant->amax, when
   * not NULL, receives the amax of D before scaling; quant->scale_inv is
   * never NULL (the core puts the scale there when the host gave none).
   * Never NULL.
   */
  const frugal_tensor* d;
  /** As in frugal_quantize_call. */
  void* stream;
  /** Multiplies the product; finite (1 when the host's struct predates it). */
  float alpha;
  /** FRUGAL_GEMM_* bits, only known ones. */
  uint32_t flags;
} frugal_quant_gemm_call;

/* ======================================================================== */
/* Vtable                                                                   */
/* ======================================================================== */

/**
 * Table of a quantizer strategy. Owned by the plugin (static), valid until
 * unload. Every slot through import_state is required; gemm may be NULL.
 * Errors are made with the host table's error_create. No slot may throw.
 * Thread safety of the call slots is declared by the FRUGAL_STRATEGY_*
 * flags; create may always run concurrently.
 */
typedef struct frugal_quantizer_vtable {
  /** sizeof(frugal_quantizer_vtable) as built by the plugin. */
  size_t struct_size;

  /**
   * Creates an instance.
   *   host:     never NULL.
   *   options:  the strategy's options (quant_fp8: format, recipe, ...);
   *             may be NULL; read during the call only. Unknown or
   *             ill-typed options must be reported as errors.
   *   instance: // out, never NULL; non-NULL on success.
   */
  frugal_error* (*create)(const frugal_host_api* host, const frugal_options* options, void** instance);

  /** Destroys an instance, exactly once, never concurrently with another slot on it. */
  void (*destroy)(void* instance);

  /**
   * Describes the instance's outputs. Called once, right after create.
   *   out: // out, never NULL; the core sets struct_size, the plugin fills
   *        the fields up to it.
   */
  frugal_error* (*layout)(void* instance, frugal_quant_layout* out);

  /**
   * Quantizes call->input into call->output (and output_t, fake). Updates
   * the recipe state (delayed scaling) unless FRUGAL_QUANTIZE_FREEZE_SCALE
   * is set. Must reject a device it was not built for with
   * FRUGAL_ERR_UNSUPPORTED naming it.
   */
  frugal_error* (*quantize)(void* instance, const frugal_quantize_call* call);

  /** Dequantizes per the input's quant meta; reads no instance state. */
  frugal_error* (*dequantize)(void* instance, const frugal_dequantize_call* call);

  /**
   * Serialises the recipe state (e.g. the amax history) for a checkpoint.
   *   buffer:   capacity bytes, or NULL to query the size.
   *   size:     // out, never NULL; the blob's size. When capacity is too
   *             small, set it and return FRUGAL_ERR_OUT_OF_RANGE.
   * A stateless recipe writes 0 bytes. The blob must be versioned and
   * self-checking: import_state of a corrupt blob is an error.
   */
  frugal_error* (*export_state)(void* instance, void* buffer, size_t capacity, size_t* size);

  /**
   * Restores export_state's blob, from an instance with the same options.
   * On error the instance's state is unchanged.
   */
  frugal_error* (*import_state)(void* instance, const void* data, size_t size);

  /** Optional (NULL: the core answers FRUGAL_ERR_UNIMPLEMENTED). */
  frugal_error* (*gemm)(void* instance, const frugal_quant_gemm_call* call);
} frugal_quantizer_vtable;

/** Bytes of frugal_quantizer_vtable a core requires (through `import_state`). */
#define FRUGAL_QUANTIZER_VTABLE_MIN_SIZE (offsetof(frugal_quantizer_vtable, import_state) + sizeof(void*))

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_layout, dtype) == 8, quant_layout_dtype);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_layout, scaling_mode) == 12, quant_layout_mode);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_layout, block_rows) == 16, quant_layout_block_rows);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_layout, block_cols) == 20, quant_layout_block_cols);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_layout, scale_dtype) == 24, quant_layout_scale_dtype);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_layout, flags) == 28, quant_layout_flags);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_quant_layout) == 32, quant_layout_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_zero_point_ext, zero_point) == 24, quant_zero_point);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_quant_zero_point_ext) == 32, quant_zero_point_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantize_call, input) == 8, quantize_call_input);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantize_call, output) == 16, quantize_call_output);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantize_call, output_t) == 24, quantize_call_output_t);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantize_call, fake) == 32, quantize_call_fake);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantize_call, stream) == 40, quantize_call_stream);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantize_call, flags) == 48, quantize_call_flags);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_quantize_call) == 56, quantize_call_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dequantize_call, input) == 8, dequantize_call_input);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dequantize_call, output) == 16, dequantize_call_output);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dequantize_call, stream) == 24, dequantize_call_stream);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_dequantize_call) == 32, dequantize_call_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_gemm_call, a) == 8, gemm_call_a);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_gemm_call, b) == 16, gemm_call_b);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_gemm_call, d) == 24, gemm_call_d);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_gemm_call, stream) == 32, gemm_call_stream);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_gemm_call, alpha) == 40, gemm_call_alpha);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_gemm_call, flags) == 44, gemm_call_flags);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_quant_gemm_call) == 48, gemm_call_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantizer_vtable, create) == 8, quantizer_create);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantizer_vtable, destroy) == 16, quantizer_destroy);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantizer_vtable, layout) == 24, quantizer_layout);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantizer_vtable, quantize) == 32, quantizer_quantize);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantizer_vtable, dequantize) == 40, quantizer_dequantize);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantizer_vtable, export_state) == 48, quantizer_export_state);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantizer_vtable, import_state) == 56, quantizer_import_state);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quantizer_vtable, gemm) == 64, quantizer_gemm);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_quantizer_vtable) == 72, quantizer_vtable_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_QUANTIZER_VTABLE_H_ */
