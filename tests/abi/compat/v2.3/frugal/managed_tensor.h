/*
 * frugal/managed_tensor.h — owning tensors, dtype helpers and DLPack import
 * and export (host side, libfrugal).
 *
 * A frugal_managed_tensor owns (or borrows with a deleter) the memory behind
 * a frugal_tensor view. It is how tensors cross between frugal and other
 * frameworks: export hands ownership to a DLPack capsule, import takes
 * ownership of one. The memory is never copied by either direction.
 *
 * Thread safety: distinct managed tensors may be used from any threads;
 * one managed tensor must not be destroyed or exported concurrently with
 * any other use of it. frugal_dtype_bits, frugal_dtype_name and
 * frugal_tensor_validate are thread-safe.
 *
 * Unless stated otherwise, pointer arguments must not be NULL; a NULL one
 * fails with FRUGAL_ERR_INVALID_ARGUMENT.
 */
#ifndef FRUGAL_MANAGED_TENSOR_H_
#define FRUGAL_MANAGED_TENSOR_H_

#include "frugal/dlpack.h"
#include "frugal/tensor.h"
#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Dtype helpers                                                            */
/* ======================================================================== */

/** Bits per element of `dtype`, or 0 for a value this library does not know. */
FRUGAL_API int32_t frugal_dtype_bits(int32_t dtype);

/** Stable lower-case name of `dtype` ("float32", "float8_e4m3fn", ...), or "unknown". Static storage. */
FRUGAL_API const char* frugal_dtype_name(int32_t dtype);

/**
 * Checks that a view (not NULL) is well formed: struct_size >=
 * FRUGAL_TENSOR_MIN_SIZE (else FRUGAL_ERR_ABI_MISMATCH), known dtype and
 * device type, 0 <= ndim <= FRUGAL_TENSOR_MAX_NDIM, shape non-NULL when
 * ndim > 0, extents >= 0, element count fits int64, and so does the
 * product of the extents with zeros counted as 1 (the compact strides,
 * even of a tensor with no element); when strides is not NULL and the
 * tensor has elements, every element's offset sum(|strides[i]| *
 * (shape[i] - 1)) fits int64. data, byte_offset, quant and ext are not
 * checked. Returns NULL, or an error
 * (FRUGAL_ERR_INVALID_ARGUMENT unless noted) naming the field. Reads the
 * view during the call only.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_tensor_validate(const frugal_tensor* tensor);

/* ======================================================================== */
/* Managed tensors                                                          */
/* ======================================================================== */

/**
 * An owning tensor: a frugal_tensor view plus whatever keeps it alive.
 * Owned by the caller that created or imported it; released by
 * frugal_managed_tensor_destroy or handed on by a DLPack export.
 */
typedef struct frugal_managed_tensor frugal_managed_tensor;

/**
 * Releases memory handed to frugal_managed_tensor_wrap. Called exactly
 * once, from whichever thread destroys the last owner; user_data is
 * never dereferenced by frugal.
 */
typedef void (*frugal_release_fn)(void* user_data);

/**
 * Allocates a zero-filled, compact row-major CPU tensor (64-byte aligned;
 * data is NULL when it has no elements). Unknown dtype, bad ndim or shape
 * (as frugal_tensor_validate checks it: e.g. {0, 2^62, 4}, whose compact
 * strides overflow int64, is refused naming the shape), or a byte size
 * overflowing int64 is FRUGAL_ERR_INVALID_ARGUMENT.
 *   shape: ndim extents, copied; may be NULL when ndim == 0.
 *   out:   // out, not NULL; owned by the caller.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_managed_tensor_alloc(int32_t dtype, int32_t ndim, const int64_t* shape,
                                                                      frugal_managed_tensor** out);

/**
 * Wraps memory the caller owns. The view (not NULL) is validated as by
 * frugal_tensor_validate and read during the call only: its shape and
 * strides are copied; `data` and its `quant` and `ext` pointers are
 * borrowed and must outlive the managed tensor. `release` (NULL allowed:
 * nothing to release) runs exactly once with `user_data` (NULL allowed)
 * when the managed tensor, or whatever it was exported into, is destroyed.
 * On failure `release` is not called.
 *   out: // out, not NULL; owned by the caller.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_managed_tensor_wrap(const frugal_tensor* view,
                                                                     frugal_release_fn release, void* user_data,
                                                                     frugal_managed_tensor** out);

/**
 * The view of a managed tensor: owned by it, valid until it is destroyed or
 * exported; the caller must not modify it. strides is filled (non-NULL
 * whenever ndim > 0) even when none were given. NULL if `tensor` is NULL.
 * Thread-safe.
 */
FRUGAL_API const frugal_tensor* frugal_managed_tensor_view(const frugal_managed_tensor* tensor);

/**
 * Destroys a managed tensor, running its release function (or the DLPack
 * deleter of an imported tensor) on the calling thread. NULL allowed. Never
 * call it on a tensor that was successfully exported.
 */
FRUGAL_API void frugal_managed_tensor_destroy(frugal_managed_tensor* tensor);

/* ======================================================================== */
/* DLPack import                                                            */
/* ======================================================================== */

/**
 * Takes ownership of a versioned DLPack tensor, in every case: on success
 * the new managed tensor calls src->deleter when destroyed; on failure
 * src->deleter has already been called (as DLPack requires for a major
 * mismatch) and no field of src is touched afterwards. `src` NULL is
 * FRUGAL_ERR_INVALID_ARGUMENT; a NULL deleter means nothing to release.
 * The data pointer is kept as is (no copy); shape and strides are copied
 * (NULL strides become compact row-major). Rejected with
 * FRUGAL_ERR_UNSUPPORTED: another DLPack major, lanes != 1, a type
 * code/bits pair frugal has no dtype for, a device other than CPU, CUDA or
 * CUDA host; with FRUGAL_ERR_INVALID_ARGUMENT: a bad ndim, shape or
 * strides, as frugal_tensor_validate checks them. A
 * READ_ONLY flag is kept in the managed tensor and carried on export;
 * other flags are ignored.
 *   out: // out, not NULL (else src is still released); owned by the caller.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_managed_tensor_from_dlpack_versioned(
    frugal_dlpack_managed_tensor_versioned* src, frugal_managed_tensor** out);

/**
 * As frugal_managed_tensor_from_dlpack_versioned, for the legacy
 * (unversioned) struct: no version check, and the result is never
 * read-only.
 *   out: // out, not NULL (else src is still released); owned by the caller.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_managed_tensor_from_dlpack(frugal_dlpack_managed_tensor* src,
                                                                            frugal_managed_tensor** out);

/* ======================================================================== */
/* DLPack export                                                            */
/* ======================================================================== */

/**
 * Moves `tensor` into a new versioned DLPack capsule. On success `tensor`
 * is consumed (do not use or destroy it); the consumer calls
 * (*out)->deleter(*out) exactly once, from any thread, which releases the
 * memory the managed tensor held and the capsule itself. On failure
 * `tensor` is untouched and still owned by the caller. Quantization
 * metadata does not travel (DLPack has no field for it). A read-only
 * tensor is exported with FRUGAL_DLPACK_FLAG_READ_ONLY.
 *   out: // out, not NULL; the capsule, allocated by libfrugal, owned by
 *        the consumer until its deleter runs. Its shape and strides arrays
 *        belong to the capsule.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_managed_tensor_to_dlpack_versioned(
    frugal_managed_tensor* tensor, frugal_dlpack_managed_tensor_versioned** out);

/**
 * As frugal_managed_tensor_to_dlpack_versioned, producing the legacy struct.
 * A read-only tensor is refused with FRUGAL_ERR_UNSUPPORTED, because the
 * legacy struct cannot carry the flag.
 *   out: // out, not NULL; released by (*out)->deleter(*out), exactly once.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_managed_tensor_to_dlpack(frugal_managed_tensor* tensor,
                                                                          frugal_dlpack_managed_tensor** out);

/** Nonzero when the tensor was imported read-only (writes are the caller's bug); 0 for NULL. */
FRUGAL_API int32_t frugal_managed_tensor_is_read_only(const frugal_managed_tensor* tensor);

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_MANAGED_TENSOR_H_ */
