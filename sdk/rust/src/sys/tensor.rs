//! frugal/tensor.h: devices, element types, quantization metadata and the
//! non-owning tensor view. Declares no function.

use std::os::raw::c_void;

use super::types::frugal_ext_header;

/// frugal_device_type_values (equal to DLPack's DLDeviceType).
pub const FRUGAL_DEVICE_CPU: i32 = 1;
pub const FRUGAL_DEVICE_CUDA: i32 = 2;
pub const FRUGAL_DEVICE_CUDA_PINNED: i32 = 3;

/// frugal_dtype_values.
pub const FRUGAL_DTYPE_FLOAT32: i32 = 1;
pub const FRUGAL_DTYPE_FLOAT16: i32 = 2;
pub const FRUGAL_DTYPE_BFLOAT16: i32 = 3;
pub const FRUGAL_DTYPE_FLOAT64: i32 = 4;
pub const FRUGAL_DTYPE_FLOAT8_E4M3FN: i32 = 5;
pub const FRUGAL_DTYPE_FLOAT8_E5M2: i32 = 6;
pub const FRUGAL_DTYPE_FLOAT8_E8M0FNU: i32 = 7;
pub const FRUGAL_DTYPE_INT8: i32 = 8;
pub const FRUGAL_DTYPE_UINT8: i32 = 9;
pub const FRUGAL_DTYPE_INT16: i32 = 10;
pub const FRUGAL_DTYPE_INT32: i32 = 11;
pub const FRUGAL_DTYPE_INT64: i32 = 12;
pub const FRUGAL_DTYPE_BOOL: i32 = 13;

/// Largest ndim a frugal tensor may have.
pub const FRUGAL_TENSOR_MAX_NDIM: i32 = 32;

/// frugal_scaling_mode_values.
pub const FRUGAL_SCALING_NONE: i32 = 0;
pub const FRUGAL_SCALING_DELAYED: i32 = 1;
pub const FRUGAL_SCALING_CURRENT: i32 = 2;
pub const FRUGAL_SCALING_PER_CHANNEL: i32 = 3;
pub const FRUGAL_SCALING_BLOCK: i32 = 4;
pub const FRUGAL_SCALING_MX: i32 = 5;

/// A device: type plus index. Plain value.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct frugal_device {
    pub type_: i32,
    pub id: i32,
}

/// Scales travelling with quantized data; valid as long as the tensor view
/// it is attached to, owned by that tensor's owner.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_quant_meta {
    pub struct_size: usize,
    pub scaling_mode: i32,
    pub block_rows: i32,
    pub block_cols: i32,
    pub reserved: i32,
    pub scale: *const frugal_tensor,
    pub scale_inv: *const frugal_tensor,
    pub amax: *const frugal_tensor,
    pub ext: *const frugal_ext_header,
}

/// A non-owning tensor view: the producer owns the memory behind every
/// pointer and keeps it valid as long as the receiving function documents
/// (by default, the call).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_tensor {
    pub struct_size: usize,
    pub data: *mut c_void,
    pub byte_offset: u64,
    pub dtype: i32,
    pub ndim: i32,
    pub device: frugal_device,
    pub shape: *const i64,
    pub strides: *const i64,
    pub quant: *const frugal_quant_meta,
    pub ext: *const frugal_ext_header,
}
