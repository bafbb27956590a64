/*
 * frugal/dlpack.h — DLPack exchange structs, laid out as the DLPack
 * specification (v1.x) defines them, under frugal_ names so this header can
 * coexist with <dlpack/dlpack.h> in one translation unit.
 *
 * A pointer to frugal_dlpack_managed_tensor_versioned may be cast to and
 * from DLManagedTensorVersioned*, and frugal_dlpack_managed_tensor to the
 * legacy DLManagedTensor* (used by consumers such as torch 1.13): the field
 * order, types and sizes match, and the layout assertions below pin them on
 * LP64. Enumerations are carried as fixed-width integers (DLPack stores the
 * device type as a 32-bit enum and the type code as uint8_t).
 *
 * Declares no function; the conversions live in frugal/managed_tensor.h.
 */
#ifndef FRUGAL_DLPACK_H_
#define FRUGAL_DLPACK_H_

#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Versions and flags                                                       */
/* ======================================================================== */

/** DLPack major version frugal produces and accepts. */
#define FRUGAL_DLPACK_MAJOR_VERSION 1
/** DLPack minor version frugal produces (any minor of the major is accepted). */
#define FRUGAL_DLPACK_MINOR_VERSION 1

/** Versioned-tensor flag: the consumer must not write through data. */
#define FRUGAL_DLPACK_FLAG_READ_ONLY ((uint64_t)1 << 0)
/** Versioned-tensor flag: the producer made a copy the consumer solely owns. Ignored on import, never set on export. */
#define FRUGAL_DLPACK_FLAG_IS_COPIED ((uint64_t)1 << 1)
/** Versioned-tensor flag: a sub-byte dtype is padded to bytes, not packed. Ignored on import, never set on export. */
#define FRUGAL_DLPACK_FLAG_IS_SUBBYTE_TYPE_PADDED ((uint64_t)1 << 2)

/** DLPack type codes (DLDataTypeCode) frugal maps to its own dtypes. */
enum frugal_dlpack_type_code_values {
  FRUGAL_DLPACK_INT = 0,
  FRUGAL_DLPACK_UINT = 1,
  FRUGAL_DLPACK_FLOAT = 2,
  FRUGAL_DLPACK_BFLOAT = 4,
  FRUGAL_DLPACK_BOOL = 6,
  FRUGAL_DLPACK_FLOAT8_E4M3FN = 10,
  FRUGAL_DLPACK_FLOAT8_E5M2 = 12,
  FRUGAL_DLPACK_FLOAT8_E8M0FNU = 14
};

/* ======================================================================== */
/* Plain tensor                                                             */
/* ======================================================================== */

/** DLPackVersion: major changes the layout, minor only adds enum values. */
typedef struct frugal_dlpack_version {
  /** DLPack major; frugal accepts only FRUGAL_DLPACK_MAJOR_VERSION. */
  uint32_t major;
  /** DLPack minor; any value is accepted. */
  uint32_t minor;
} frugal_dlpack_version;

/** DLDevice: device_type is a DLDeviceType code (1 CPU, 2 CUDA, 3 CUDA host). */
typedef struct frugal_dlpack_device {
  /** DLDeviceType code; equals the frugal_device_type_values value for the same memory. */
  int32_t device_type;
  /** Device ordinal (CUDA device index; 0 for host memory). */
  int32_t device_id;
} frugal_dlpack_device;

/** DLDataType: type code, bits per lane, lanes (frugal accepts lanes == 1). */
typedef struct frugal_dlpack_dtype {
  /** DLDataTypeCode (frugal_dlpack_type_code_values and others). */
  uint8_t code;
  /** Bits per lane (e.g. 8 for fp8, 16 for bfloat16). */
  uint8_t bits;
  /** Vector lanes per element; frugal produces and accepts only 1. */
  uint16_t lanes;
} frugal_dlpack_dtype;

/**
 * DLTensor: a non-owning view; the arrays and memory it points to are owned
 * by the producer of the managed struct that contains it and stay valid
 * until that struct's deleter runs.
 * strides are in elements; a NULL strides pointer (allowed by DLPack before
 * 1.0 and still produced by some libraries) means compact row-major. frugal
 * fills strides whenever ndim > 0 when it produces a DLTensor.
 */
typedef struct frugal_dlpack_tensor {
  /** Base address of the memory (a device pointer for CUDA); not copied by frugal. */
  void* data;
  /** Where the memory lives. */
  frugal_dlpack_device device;
  /** Number of dimensions; frugal imports 0..FRUGAL_TENSOR_MAX_NDIM (frugal/tensor.h). */
  int32_t ndim;
  /** Element type. */
  frugal_dlpack_dtype dtype;
  /** ndim extents, each >= 0; may be NULL when ndim == 0. */
  int64_t* shape;
  /** ndim strides in elements, or NULL (compact row-major). */
  int64_t* strides;
  /** Bytes from data to the first element. */
  uint64_t byte_offset;
} frugal_dlpack_tensor;

/* ======================================================================== */
/* Managed tensors                                                          */
/* ======================================================================== */

/**
 * Legacy DLManagedTensor. The consumer calls deleter(self) exactly once
 * when done (deleter may be NULL: nothing to release); deleter frees self.
 */
typedef struct frugal_dlpack_managed_tensor {
  /** The tensor view. */
  frugal_dlpack_tensor dl_tensor;
  /** Producer-private state for the deleter; consumers never touch it. */
  void* manager_ctx;
  /** Releases the tensor and self; NULL when there is nothing to release. */
  void (*deleter)(struct frugal_dlpack_managed_tensor* self);
} frugal_dlpack_managed_tensor;

/**
 * DLManagedTensorVersioned. The consumer checks version.major first: on a
 * different major only the deleter may be called. deleter(self) releases
 * everything, self included, and is called exactly once (NULL allowed).
 */
typedef struct frugal_dlpack_managed_tensor_versioned {
  /** DLPack version of this struct; checked before any other field. */
  frugal_dlpack_version version;
  /** Producer-private state for the deleter; consumers never touch it. */
  void* manager_ctx;
  /** Releases the tensor and self; NULL when there is nothing to release. */
  void (*deleter)(struct frugal_dlpack_managed_tensor_versioned* self);
  /** FRUGAL_DLPACK_FLAG_* bits. */
  uint64_t flags;
  /** The tensor view. */
  frugal_dlpack_tensor dl_tensor;
} frugal_dlpack_managed_tensor_versioned;

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_dlpack_version) == 8, dl_version_size);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_dlpack_device) == 8, dl_device_size);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_dlpack_dtype) == 4, dl_dtype_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dlpack_tensor, device) == 8, dl_tensor_device);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dlpack_tensor, ndim) == 16, dl_tensor_ndim);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dlpack_tensor, dtype) == 20, dl_tensor_dtype);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dlpack_tensor, shape) == 24, dl_tensor_shape);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dlpack_tensor, strides) == 32, dl_tensor_strides);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dlpack_tensor, byte_offset) == 40, dl_tensor_byte_offset);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_dlpack_tensor) == 48, dl_tensor_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dlpack_managed_tensor, manager_ctx) == 48, dl_managed_ctx);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dlpack_managed_tensor, deleter) == 56, dl_managed_deleter);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_dlpack_managed_tensor) == 64, dl_managed_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dlpack_managed_tensor_versioned, manager_ctx) == 8, dl_versioned_ctx);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dlpack_managed_tensor_versioned, deleter) == 16, dl_versioned_deleter);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dlpack_managed_tensor_versioned, flags) == 24, dl_versioned_flags);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_dlpack_managed_tensor_versioned, dl_tensor) == 32, dl_versioned_tensor);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_dlpack_managed_tensor_versioned) == 80, dl_versioned_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_DLPACK_H_ */
