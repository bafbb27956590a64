//! frugal/dlpack.h: the DLPack exchange structs (v1.x layout) under frugal
//! names. A `*mut frugal_dlpack_managed_tensor_versioned` may be handed to
//! any DLPack consumer as a `DLManagedTensorVersioned*`, and
//! `frugal_dlpack_managed_tensor` as the legacy `DLManagedTensor*`.
//! Declares no function.

use std::os::raw::c_void;

/// DLPack major version frugal produces and accepts.
pub const FRUGAL_DLPACK_MAJOR_VERSION: u32 = 1;
/// DLPack minor version frugal produces.
pub const FRUGAL_DLPACK_MINOR_VERSION: u32 = 1;

/// Versioned-tensor flags.
pub const FRUGAL_DLPACK_FLAG_READ_ONLY: u64 = 1 << 0;
pub const FRUGAL_DLPACK_FLAG_IS_COPIED: u64 = 1 << 1;
pub const FRUGAL_DLPACK_FLAG_IS_SUBBYTE_TYPE_PADDED: u64 = 1 << 2;

/// frugal_dlpack_type_code_values (DLDataTypeCode).
pub const FRUGAL_DLPACK_INT: u8 = 0;
pub const FRUGAL_DLPACK_UINT: u8 = 1;
pub const FRUGAL_DLPACK_FLOAT: u8 = 2;
pub const FRUGAL_DLPACK_BFLOAT: u8 = 4;
pub const FRUGAL_DLPACK_BOOL: u8 = 6;
pub const FRUGAL_DLPACK_FLOAT8_E4M3FN: u8 = 10;
pub const FRUGAL_DLPACK_FLOAT8_E5M2: u8 = 12;
pub const FRUGAL_DLPACK_FLOAT8_E8M0FNU: u8 = 14;

/// DLPackVersion. Plain value.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct frugal_dlpack_version {
    pub major: u32,
    pub minor: u32,
}

/// DLDevice. Plain value.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct frugal_dlpack_device {
    pub device_type: i32,
    pub device_id: i32,
}

/// DLDataType. Plain value.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct frugal_dlpack_dtype {
    pub code: u8,
    pub bits: u8,
    pub lanes: u16,
}

/// DLTensor: a non-owning view; its arrays belong to the managed struct
/// that contains it, valid until that struct's deleter runs.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_dlpack_tensor {
    pub data: *mut c_void,
    pub device: frugal_dlpack_device,
    pub ndim: i32,
    pub dtype: frugal_dlpack_dtype,
    pub shape: *mut i64,
    pub strides: *mut i64,
    pub byte_offset: u64,
}

/// Legacy DLManagedTensor; the consumer calls `deleter(self)` exactly once.
#[repr(C)]
#[derive(Debug)]
pub struct frugal_dlpack_managed_tensor {
    pub dl_tensor: frugal_dlpack_tensor,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(this: *mut frugal_dlpack_managed_tensor)>,
}

/// DLManagedTensorVersioned; check `version.major` before any other field.
#[repr(C)]
#[derive(Debug)]
pub struct frugal_dlpack_managed_tensor_versioned {
    pub version: frugal_dlpack_version,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(this: *mut frugal_dlpack_managed_tensor_versioned)>,
    pub flags: u64,
    pub dl_tensor: frugal_dlpack_tensor,
}
