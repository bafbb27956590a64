/*
 * frugal/tensor.h — the tensor descriptor that crosses the ABI: devices,
 * element types, quantization metadata and the non-owning tensor view.
 *
 * A frugal_tensor describes memory it does not own, like DLPack's DLTensor,
 * plus an optional quantization slot (scale, scale_inv, amax, scaling mode,
 * block shape) so FP8 data never travels without the numbers that give it
 * meaning. Owning tensors and DLPack exchange live in frugal/managed_tensor.h.
 *
 * Declares no function; safe for plugins.
 */
#ifndef FRUGAL_TENSOR_H_
#define FRUGAL_TENSOR_H_

#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Devices                                                                  */
/* ======================================================================== */

/**
 * Where tensor memory lives. Carried as int32_t. The values equal DLPack's
 * DLDeviceType codes for the same memory, so conversion is the identity.
 */
enum frugal_device_type_values {
  FRUGAL_DEVICE_CPU = 1,        /**< Ordinary host memory. */
  FRUGAL_DEVICE_CUDA = 2,       /**< CUDA device memory. */
  FRUGAL_DEVICE_CUDA_PINNED = 3 /**< Page-locked host memory (cudaMallocHost). */
};

/** A device: type plus index. Plain value; copy freely. */
typedef struct frugal_device {
  /** One of frugal_device_type_values. */
  int32_t type;
  /** CUDA ordinal for FRUGAL_DEVICE_CUDA; 0 for host memory. */
  int32_t id;
} frugal_device;

/* ======================================================================== */
/* Element types                                                            */
/* ======================================================================== */

/**
 * Element type of a tensor. Carried as int32_t. Stable values; never
 * renumbered. fp8 names follow the OCP FP8 spec and DLPack's spelling.
 */
enum frugal_dtype_values {
  FRUGAL_DTYPE_FLOAT32 = 1,
  FRUGAL_DTYPE_FLOAT16 = 2, /**< IEEE binary16. */
  FRUGAL_DTYPE_BFLOAT16 = 3,
  FRUGAL_DTYPE_FLOAT64 = 4,
  FRUGAL_DTYPE_FLOAT8_E4M3FN = 5,  /**< OCP E4M3: bias 7, no infinities, NaN 0x7F/0xFF, max 448. */
  FRUGAL_DTYPE_FLOAT8_E5M2 = 6,    /**< OCP E5M2: IEEE-like, max 57344. */
  FRUGAL_DTYPE_FLOAT8_E8M0FNU = 7, /**< OCP E8M0: exponent-only scale (MX), NaN 0xFF. */
  FRUGAL_DTYPE_INT8 = 8,
  FRUGAL_DTYPE_UINT8 = 9,
  FRUGAL_DTYPE_INT16 = 10,
  FRUGAL_DTYPE_INT32 = 11,
  FRUGAL_DTYPE_INT64 = 12,
  FRUGAL_DTYPE_BOOL = 13 /**< One byte per element, 0 or 1. */
};

/** Largest ndim a frugal tensor may have. */
#define FRUGAL_TENSOR_MAX_NDIM 32

/* ======================================================================== */
/* Quantization metadata                                                    */
/* ======================================================================== */

/**
 * How a quantized tensor's scales are laid out. Carried as int32_t.
 * Convention throughout frugal (Transformer Engine's): quantized = x * scale,
 * x ~= quantized * scale_inv.
 */
enum frugal_scaling_mode_values {
  FRUGAL_SCALING_NONE = 0,        /**< Not quantized; the quant slot is ignored. */
  FRUGAL_SCALING_DELAYED = 1,     /**< One scale per tensor, from an amax history. */
  FRUGAL_SCALING_CURRENT = 2,     /**< One scale per tensor, from this tensor's amax. */
  FRUGAL_SCALING_PER_CHANNEL = 3, /**< One scale per row (block 1 x cols) or column (rows x 1). */
  FRUGAL_SCALING_BLOCK = 4,       /**< block_rows x block_cols blocks, fp32 scales (e.g. 1x128, 128x128). */
  FRUGAL_SCALING_MX = 5           /**< OCP MX: 1 x 32 blocks, E8M0 scales. */
};

/**
 * Scales travelling with quantized data. Owned by whoever owns the tensor
 * it is attached to; valid exactly as long as that tensor view.
 */
typedef struct frugal_quant_meta {
  /** sizeof(frugal_quant_meta) as built by the producer. */
  size_t struct_size;
  /** One of frugal_scaling_mode_values. */
  int32_t scaling_mode;
  /** Block extent along the second-to-last dimension (1 for per-row / 1xN). */
  int32_t block_rows;
  /** Block extent along the last dimension. */
  int32_t block_cols;
  /** Padding; producers set 0. */
  int32_t reserved;
  /** Scales (quantized = x * scale): fp32, or E8M0 for MX. NULL allowed when scale_inv is set. */
  const struct frugal_tensor* scale;
  /** Inverse scales (x = quantized * scale_inv), fp32. NULL allowed when scale is set. */
  const struct frugal_tensor* scale_inv;
  /** Absolute maximum observed before quantization, fp32; NULL when not tracked. */
  const struct frugal_tensor* amax;
  /** Extension chain (frugal_ext_header), NULL when none. */
  const frugal_ext_header* ext;
} frugal_quant_meta;

/* ======================================================================== */
/* Tensor view                                                              */
/* ======================================================================== */

/**
 * A non-owning tensor view. The producer owns the memory behind data,
 * shape, strides and quant, and keeps it valid for as long as the function
 * receiving the view documents (by default: the duration of the call).
 * The element at index (i0, ..., in-1) lives at
 *   (char*)data + byte_offset + element_size * sum(ik * strides[k]).
 */
typedef struct frugal_tensor {
  /** sizeof(frugal_tensor) as built by the producer. */
  size_t struct_size;
  /** Base address (device pointer for CUDA). May be NULL when the tensor has no elements. */
  void* data;
  /** Bytes from data to the first element (uint64_t as in DLPack's DLTensor, so views convert as they are). */
  uint64_t byte_offset;
  /** One of frugal_dtype_values. */
  int32_t dtype;
  /** Number of dimensions, 0..FRUGAL_TENSOR_MAX_NDIM (0 = scalar). */
  int32_t ndim;
  /** Where the memory lives. */
  frugal_device device;
  /** ndim extents, each >= 0. May be NULL only when ndim == 0. */
  const int64_t* shape;
  /** ndim strides in elements (not bytes), or NULL for compact row-major. */
  const int64_t* strides;
  /** Quantization metadata, or NULL for a plain tensor. */
  const frugal_quant_meta* quant;
  /** Extension chain, NULL when none. */
  const frugal_ext_header* ext;
} frugal_tensor;

/** Bytes of frugal_tensor a receiver requires (through `strides`); quant and ext are optional. */
#define FRUGAL_TENSOR_MIN_SIZE (offsetof(frugal_tensor, strides) + sizeof(const int64_t*))

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_device) == 8, device_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_meta, scaling_mode) == 8, quant_mode);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_meta, block_rows) == 12, quant_block_rows);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_meta, block_cols) == 16, quant_block_cols);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_meta, scale) == 24, quant_scale);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_meta, scale_inv) == 32, quant_scale_inv);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_meta, amax) == 40, quant_amax);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_quant_meta, ext) == 48, quant_ext);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_quant_meta) == 56, quant_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_tensor, data) == 8, tensor_data);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_tensor, byte_offset) == 16, tensor_byte_offset);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_tensor, dtype) == 24, tensor_dtype);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_tensor, ndim) == 28, tensor_ndim);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_tensor, device) == 32, tensor_device);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_tensor, shape) == 40, tensor_shape);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_tensor, strides) == 48, tensor_strides);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_tensor, quant) == 56, tensor_quant);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_tensor, ext) == 64, tensor_ext);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_tensor) == 72, tensor_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_TENSOR_H_ */
