//! frugal/managed_tensor.h: dtype helpers, owning tensors and DLPack import
//! and export. Pointer arguments must not be NULL unless stated.
//!
//! Distinct managed tensors may be used from any threads; one must not be
//! destroyed or exported while it is used elsewhere.

use std::os::raw::{c_char, c_void};

use super::dlpack::{frugal_dlpack_managed_tensor, frugal_dlpack_managed_tensor_versioned};
use super::tensor::frugal_tensor;
use super::types::frugal_error;

/// Opaque owning tensor; owned by whoever created or imported it.
#[repr(C)]
pub struct frugal_managed_tensor {
    _opaque: [u8; 0],
}

/// Releases memory handed to `frugal_managed_tensor_wrap`; runs exactly once.
pub type frugal_release_fn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

extern "C" {
    /// Bits per element, 0 for an unknown dtype. Thread-safe.
    pub fn frugal_dtype_bits(dtype: i32) -> i32;
    /// Static storage ("float32", ..., "unknown").
    pub fn frugal_dtype_name(dtype: i32) -> *const c_char;
    /// Checks a view's shape fields (not its data); reads it during the call.
    pub fn frugal_tensor_validate(tensor: *const frugal_tensor) -> *mut frugal_error;

    /// Zero-filled compact CPU tensor, 64-byte aligned; `shape` copied.
    pub fn frugal_managed_tensor_alloc(
        dtype: i32,
        ndim: i32,
        shape: *const i64,
        out: *mut *mut frugal_managed_tensor,
    ) -> *mut frugal_error;
    /// Borrows `view.data` until the managed tensor (or its export) is
    /// destroyed, then calls `release(user_data)` once; not on failure.
    pub fn frugal_managed_tensor_wrap(
        view: *const frugal_tensor,
        release: frugal_release_fn,
        user_data: *mut c_void,
        out: *mut *mut frugal_managed_tensor,
    ) -> *mut frugal_error;
    /// Owned by the tensor, valid until it is destroyed or exported; strides filled.
    pub fn frugal_managed_tensor_view(tensor: *const frugal_managed_tensor) -> *const frugal_tensor;
    /// NULL allowed; never on a tensor that was exported.
    pub fn frugal_managed_tensor_destroy(tensor: *mut frugal_managed_tensor);

    /// Takes ownership of `src` in every case (its deleter already ran on failure).
    pub fn frugal_managed_tensor_from_dlpack_versioned(
        src: *mut frugal_dlpack_managed_tensor_versioned,
        out: *mut *mut frugal_managed_tensor,
    ) -> *mut frugal_error;
    /// As above for the legacy struct; the result is never read-only.
    pub fn frugal_managed_tensor_from_dlpack(
        src: *mut frugal_dlpack_managed_tensor,
        out: *mut *mut frugal_managed_tensor,
    ) -> *mut frugal_error;
    /// Consumes `tensor` on success; the consumer calls `(*out).deleter(*out)` once.
    pub fn frugal_managed_tensor_to_dlpack_versioned(
        tensor: *mut frugal_managed_tensor,
        out: *mut *mut frugal_dlpack_managed_tensor_versioned,
    ) -> *mut frugal_error;
    /// As above, legacy struct; a read-only tensor is FRUGAL_ERR_UNSUPPORTED.
    pub fn frugal_managed_tensor_to_dlpack(
        tensor: *mut frugal_managed_tensor,
        out: *mut *mut frugal_dlpack_managed_tensor,
    ) -> *mut frugal_error;
    /// Nonzero when imported read-only; 0 for NULL.
    pub fn frugal_managed_tensor_is_read_only(tensor: *const frugal_managed_tensor) -> i32;
}
