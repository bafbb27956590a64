//! frugal/quantizer.h and the argument structs of frugal/quantizer_vtable.h:
//! FP8/INT8 quantizers. Convention: quantized = x * scale,
//! x ~= quantized * scale_inv.
//!
//! Calls on one quantizer may run concurrently only when its strategy has
//! FRUGAL_STRATEGY_THREAD_SAFE; destroy must not race other calls.

use std::os::raw::{c_char, c_void};

use super::tensor::frugal_tensor;
use super::types::{frugal_context, frugal_error, frugal_ext_header, frugal_options};

/// frugal_quant_layout.flags: outputs carry an int8 zero point.
pub const FRUGAL_QUANT_LAYOUT_ZERO_POINT: u32 = 1 << 0;
/// frugal_ext_header.type of frugal_quant_zero_point_ext.
pub const FRUGAL_EXT_QUANT_ZERO_POINT: i32 = 0x0002_0001;
/// frugal_quantize_args.flags: use the current scale, do not record this amax.
pub const FRUGAL_QUANTIZE_FREEZE_SCALE: u32 = 1 << 0;
/// frugal_quant_gemm_args.flags: fast FP8 accumulation.
pub const FRUGAL_GEMM_FAST_ACCUM: u32 = 1 << 0;

/// What a quantizer produces; caller sets struct_size, the core fills up to it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_quant_layout {
    pub struct_size: usize,
    pub dtype: i32,
    pub scaling_mode: i32,
    pub block_rows: i32,
    pub block_cols: i32,
    pub scale_dtype: i32,
    pub flags: u32,
}

/// Chained on a quant meta's ext by asymmetric INT8 layouts; owned like that meta.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_quant_zero_point_ext {
    pub header: frugal_ext_header,
    pub zero_point: *const frugal_tensor,
}

/// One quantize call; caller-owned, read during the call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_quantize_args {
    pub struct_size: usize,
    pub input: *const frugal_tensor,
    pub output: *const frugal_tensor,
    pub output_t: *const frugal_tensor,
    pub fake: *const frugal_tensor,
    pub stream: *mut c_void,
    pub flags: u32,
    pub reserved: u32,
}

/// One dequantize, output = input * scale_inv; caller-owned, read during
/// the call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_dequantize_args {
    pub struct_size: usize,
    pub input: *const frugal_tensor,
    pub output: *const frugal_tensor,
    pub stream: *mut c_void,
}

/// One FP8 GEMM, D = alpha * A * B^T; caller-owned, read during the call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_quant_gemm_args {
    pub struct_size: usize,
    pub a: *const frugal_tensor,
    pub b: *const frugal_tensor,
    pub d: *const frugal_tensor,
    pub stream: *mut c_void,
    pub alpha: f32,
    pub flags: u32,
}

/// Opaque quantizer; owned by its creator, independent of the context.
#[repr(C)]
pub struct frugal_quantizer {
    _opaque: [u8; 0],
}

extern "C" {
    /// `options` may be NULL, read during the call; `*out` owned by the caller.
    pub fn frugal_quantizer_create(
        context: *mut frugal_context,
        name: *const c_char,
        options: *const frugal_options,
        out: *mut *mut frugal_quantizer,
    ) -> *mut frugal_error;
    pub fn frugal_quantizer_layout(quantizer: *const frugal_quantizer, out: *mut frugal_quant_layout)
        -> *mut frugal_error;
    /// `shape`: 2 entries written.
    pub fn frugal_quantizer_scale_shape(
        quantizer: *const frugal_quantizer,
        rows: i64,
        cols: i64,
        shape: *mut i64,
    ) -> *mut frugal_error;
    pub fn frugal_quantizer_quantize(quantizer: *mut frugal_quantizer, args: *const frugal_quantize_args)
        -> *mut frugal_error;
    pub fn frugal_quantizer_dequantize(quantizer: *mut frugal_quantizer, args: *const frugal_dequantize_args)
        -> *mut frugal_error;
    pub fn frugal_quantizer_gemm(quantizer: *mut frugal_quantizer, args: *const frugal_quant_gemm_args)
        -> *mut frugal_error;
    /// `buffer` NULL (capacity 0) queries the size; too small is OUT_OF_RANGE with `*size` set.
    pub fn frugal_quantizer_export_state(
        quantizer: *mut frugal_quantizer,
        buffer: *mut c_void,
        capacity: usize,
        size: *mut usize,
    ) -> *mut frugal_error;
    pub fn frugal_quantizer_import_state(quantizer: *mut frugal_quantizer, data: *const c_void, size: usize)
        -> *mut frugal_error;
    /// NULL allowed.
    pub fn frugal_quantizer_destroy(quantizer: *mut frugal_quantizer);
}
