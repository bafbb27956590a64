//! `Quantizer`: an FP8/INT8 quantizer strategy instance (frugal/quantizer.h)
//! working on slice-backed tensor views.

use std::mem::size_of;
use std::os::raw::c_void;
use std::ptr::{self, NonNull};

use crate::context::Context;
use crate::error::{check, Error, ErrorCode, Result};
use crate::options::Options;
use crate::state_blob::export_blob;
use crate::strings::to_c_string;
use crate::sys;
use crate::tensor::{DType, TensorMut, TensorRef};

/// What a quantizer produces, fixed at creation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuantLayout {
    /// Element dtype of the codes (E4M3, E5M2 or INT8).
    pub dtype: DType,
    /// `sys::FRUGAL_SCALING_*`, never NONE.
    pub scaling_mode: i32,
    /// Rows per scale block; 0 means all rows.
    pub block_rows: i32,
    /// Columns per scale block; 0 means all columns.
    pub block_cols: i32,
    /// dtype of the scale tensors (F32, or F8E8M0 for MX).
    pub scale_dtype: DType,
    /// `sys::FRUGAL_QUANT_LAYOUT_*` bits.
    pub flags: u32,
}

/// Where a quantize call writes; each view is borrowed for the call only.
/// `codes` has the input's shape and the layout's dtype; `scale_inv` (and
/// `scale`) hold the scale grid of [`Quantizer::scale_shape`]; `amax` one
/// f32; `fake` the input's shape and dtype (dequantize(quantize(x))).
pub struct QuantizeOutputs<'o, 'a> {
    pub codes: &'o mut TensorMut<'a>,
    pub scale_inv: &'o mut TensorMut<'a>,
    pub scale: Option<&'o mut TensorMut<'a>>,
    pub amax: Option<&'o mut TensorMut<'a>>,
    pub fake: Option<&'o mut TensorMut<'a>>,
    /// `sys::FRUGAL_QUANTIZE_*` bits.
    pub flags: u32,
}

impl<'o, 'a> QuantizeOutputs<'o, 'a> {
    /// The required outputs only: codes and their inverse scales.
    pub fn new(codes: &'o mut TensorMut<'a>, scale_inv: &'o mut TensorMut<'a>) -> QuantizeOutputs<'o, 'a> {
        QuantizeOutputs { codes, scale_inv, scale: None, amax: None, fake: None, flags: 0 }
    }
}

/// An FP8 operand of [`Quantizer::gemm`]: E4M3 or E5M2 codes `[rows, k]`
/// and their per-tensor inverse scale (one f32), as a per-tensor
/// quantize wrote them. Borrowed for the call only.
pub struct GemmOperand<'o, 'a> {
    pub codes: &'o TensorRef<'a>,
    pub scale_inv: &'o TensorRef<'a>,
    /// The producer's `sys::FRUGAL_SCALING_*`: DELAYED or CURRENT (the
    /// GEMM takes per-tensor scales only).
    pub scaling_mode: i32,
}

impl<'o, 'a> GemmOperand<'o, 'a> {
    /// An operand quantized with per-tensor current scaling.
    pub fn new(codes: &'o TensorRef<'a>, scale_inv: &'o TensorRef<'a>) -> GemmOperand<'o, 'a> {
        GemmOperand { codes, scale_inv, scaling_mode: sys::FRUGAL_SCALING_CURRENT }
    }
}

/// Where [`Quantizer::gemm`] writes D `[m, n]`: f32 or bf16, or FP8 (E4M3,
/// E5M2), which needs `scale` (one f32, D is multiplied by it before the
/// cast) and may take `amax` (one f32, receives max |D| before scaling).
pub struct GemmOutput<'o, 'a> {
    pub d: &'o mut TensorMut<'a>,
    pub scale: Option<&'o TensorRef<'a>>,
    pub amax: Option<&'o mut TensorMut<'a>>,
}

impl<'o, 'a> GemmOutput<'o, 'a> {
    /// An f32 or bf16 D.
    pub fn new(d: &'o mut TensorMut<'a>) -> GemmOutput<'o, 'a> {
        GemmOutput { d, scale: None, amax: None }
    }
}

/// A quantizer for one tensor stream. Dropping it calls
/// `frugal_quantizer_destroy`; it may outlive its context.
///
/// `Send` but not `Sync`: concurrent calls are allowed only for strategies
/// flagged thread-safe (quant_fp8's are); share it behind a `Mutex`.
pub struct Quantizer {
    raw: NonNull<sys::frugal_quantizer>,
    layout: QuantLayout,
}

// SAFETY: quantizer.h lets a quantizer move between threads.
unsafe impl Send for Quantizer {}

fn dtype_of(raw: i32, what: &str) -> Result<DType> {
    DType::from_raw(raw)
        .ok_or_else(|| Error::new(ErrorCode::Unsupported, &format!("{} has dtype {}, unknown to this binding", what, raw)))
}

impl Quantizer {
    /// Creates the quantizer `name` (e.g. "quant_fp8"); `options` are read
    /// during the call only (quant_fp8: format, recipe, history, margin, ...).
    pub fn new(context: &Context, name: &str, options: Option<&Options>) -> Result<Quantizer> {
        let name = to_c_string("quantizer name", name)?;
        let options = options.map_or(ptr::null(), |o| o.as_ptr());
        let mut raw = ptr::null_mut();
        // SAFETY: live context; name and options outlive the call.
        check(unsafe { sys::frugal_quantizer_create(context.as_ptr(), name.as_ptr(), options, &mut raw) })?;
        let raw = NonNull::new(raw).expect("frugal_quantizer_create succeeded with NULL");
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut c_layout: sys::frugal_quant_layout = unsafe { std::mem::zeroed() };
        c_layout.struct_size = size_of::<sys::frugal_quant_layout>();
        // Own the handle first, so an error below still destroys it.
        let mut quantizer = Quantizer {
            raw,
            layout: QuantLayout {
                dtype: DType::U8,
                scaling_mode: 0,
                block_rows: 0,
                block_cols: 0,
                scale_dtype: DType::F32,
                flags: 0,
            },
        };
        // SAFETY: live quantizer; caller-allocated layout with struct_size set.
        check(unsafe { sys::frugal_quantizer_layout(raw.as_ptr(), &mut c_layout) })?;
        quantizer.layout = QuantLayout {
            dtype: dtype_of(c_layout.dtype, "the quantizer's output")?,
            scaling_mode: c_layout.scaling_mode,
            block_rows: c_layout.block_rows,
            block_cols: c_layout.block_cols,
            scale_dtype: dtype_of(c_layout.scale_dtype, "the quantizer's scale")?,
            flags: c_layout.flags,
        };
        Ok(quantizer)
    }

    /// The layout, read once at creation.
    pub fn layout(&self) -> QuantLayout {
        self.layout
    }

    /// The scale grid `[grid_rows, grid_cols]` for a `[rows, cols]` input.
    pub fn scale_shape(&self, rows: i64, cols: i64) -> Result<[i64; 2]> {
        let mut shape = [0i64; 2];
        // SAFETY: live quantizer; `shape` has the 2 entries written.
        check(unsafe { sys::frugal_quantizer_scale_shape(self.raw.as_ptr(), rows, cols, shape.as_mut_ptr()) })?;
        Ok(shape)
    }

    /// The quant meta of this layout over the given scale views.
    fn meta(&self, scale_inv: &sys::frugal_tensor, scale: Option<&sys::frugal_tensor>, amax: Option<&sys::frugal_tensor>) -> sys::frugal_quant_meta {
        sys::frugal_quant_meta {
            struct_size: size_of::<sys::frugal_quant_meta>(),
            scaling_mode: self.layout.scaling_mode,
            block_rows: self.layout.block_rows,
            block_cols: self.layout.block_cols,
            reserved: 0,
            scale: scale.map_or(ptr::null(), |s| s as *const _),
            scale_inv,
            amax: amax.map_or(ptr::null(), |a| a as *const _),
            ext: ptr::null(),
        }
    }

    /// Quantizes `input` (f32, bf16 or f16) into `out`. Host tensors are
    /// done when this returns. Layouts with a zero point (asymmetric INT8)
    /// need the raw layer, which can chain the zero-point extension.
    pub fn quantize(&self, input: &TensorRef<'_>, out: QuantizeOutputs<'_, '_>) -> Result<()> {
        let input_view = input.raw();
        let scale_inv = out.scale_inv.raw();
        let scale = out.scale.map(|t| t.raw());
        let amax = out.amax.map(|t| t.raw());
        let fake = out.fake.map(|t| t.raw());
        let meta = self.meta(&scale_inv, scale.as_ref(), amax.as_ref());
        let mut codes = out.codes.raw();
        codes.quant = &meta;
        let args = sys::frugal_quantize_args {
            struct_size: size_of::<sys::frugal_quantize_args>(),
            input: &input_view,
            output: &codes,
            output_t: ptr::null(),
            fake: fake.as_ref().map_or(ptr::null(), |f| f as *const _),
            stream: ptr::null_mut(),
            flags: out.flags,
            reserved: 0,
        };
        // SAFETY: every view points at memory borrowed for this call (the
        // outputs exclusively, so nothing in Rust reads them meanwhile), and
        // at shapes owned by those views, alive until the end of the call.
        check(unsafe { sys::frugal_quantizer_quantize(self.raw.as_ptr(), &args) })
    }

    /// Dequantizes `codes` with their inverse scales `scale_inv` (the grid
    /// that quantize wrote) into `output` (f32, bf16 or f16, same shape).
    pub fn dequantize(&self, codes: &TensorRef<'_>, scale_inv: &TensorRef<'_>, output: &mut TensorMut<'_>) -> Result<()> {
        let scale_inv_view = scale_inv.raw();
        let meta = self.meta(&scale_inv_view, None, None);
        let mut codes_view = codes.raw();
        codes_view.quant = &meta;
        let output_view = output.raw();
        let args = sys::frugal_dequantize_args {
            struct_size: size_of::<sys::frugal_dequantize_args>(),
            input: &codes_view,
            output: &output_view,
            stream: ptr::null_mut(),
        };
        // SAFETY: views of memory borrowed for the call; only output is written.
        check(unsafe { sys::frugal_quantizer_dequantize(self.raw.as_ptr(), &args) })
    }

    /// D = alpha * A * B^T over FP8 operands (`a` `[m, k]`, `b` `[n, k]`,
    /// not both E5M2) with fp32 accumulation, on host tensors. The
    /// operands may come from other quantizers; this one runs the GEMM.
    /// `flags`: `sys::FRUGAL_GEMM_*`. `ErrorCode::Unimplemented` when the
    /// strategy has no GEMM, `ErrorCode::Unsupported` for operands it
    /// cannot multiply (block scales, both E5M2, other dtypes).
    pub fn gemm(&self, a: &GemmOperand<'_, '_>, b: &GemmOperand<'_, '_>, out: GemmOutput<'_, '_>, alpha: f32, flags: u32) -> Result<()> {
        let operand_meta = |scale_inv: &sys::frugal_tensor, mode: i32| sys::frugal_quant_meta {
            struct_size: size_of::<sys::frugal_quant_meta>(),
            scaling_mode: mode,
            block_rows: 0,
            block_cols: 0,
            reserved: 0,
            scale: ptr::null(),
            scale_inv,
            amax: ptr::null(),
            ext: ptr::null(),
        };
        let a_scale_inv = a.scale_inv.raw();
        let b_scale_inv = b.scale_inv.raw();
        let a_meta = operand_meta(&a_scale_inv, a.scaling_mode);
        let b_meta = operand_meta(&b_scale_inv, b.scaling_mode);
        let mut a_view = a.codes.raw();
        a_view.quant = &a_meta;
        let mut b_view = b.codes.raw();
        b_view.quant = &b_meta;

        let d_scale = out.scale.map(|t| t.raw());
        let d_amax = out.amax.map(|t| t.raw());
        // The core fills the inverse scale's slot from `scale` (it does not
        // write scale_inv); the output's scaling is per-tensor.
        let d_meta = sys::frugal_quant_meta {
            struct_size: size_of::<sys::frugal_quant_meta>(),
            scaling_mode: sys::FRUGAL_SCALING_CURRENT,
            block_rows: 0,
            block_cols: 0,
            reserved: 0,
            scale: d_scale.as_ref().map_or(ptr::null(), |s| s as *const _),
            scale_inv: ptr::null(),
            amax: d_amax.as_ref().map_or(ptr::null(), |s| s as *const _),
            ext: ptr::null(),
        };
        let mut d_view = out.d.raw();
        if d_scale.is_some() || d_amax.is_some() {
            d_view.quant = &d_meta;
        }
        let args = sys::frugal_quant_gemm_args {
            struct_size: size_of::<sys::frugal_quant_gemm_args>(),
            a: &a_view,
            b: &b_view,
            d: &d_view,
            stream: ptr::null_mut(),
            alpha,
            flags,
        };
        // SAFETY: every view points at memory borrowed for this call (D and
        // amax exclusively) and at shapes and metas alive until its end.
        check(unsafe { sys::frugal_quantizer_gemm(self.raw.as_ptr(), &args) })
    }

    /// The recipe state (e.g. the amax history), to checkpoint with the model.
    pub fn export_state(&self) -> Result<Vec<u8>> {
        // SAFETY: live quantizer; the helper passes a valid buffer and size.
        export_blob(|buffer, capacity, size| unsafe {
            sys::frugal_quantizer_export_state(self.raw.as_ptr(), buffer, capacity, size)
        })
    }

    /// Restores a state exported by a quantizer with the same options; a
    /// bad blob is an error and leaves the state as it was.
    pub fn import_state(&self, state: &[u8]) -> Result<()> {
        // SAFETY: live quantizer; `state` is read during the call.
        check(unsafe { sys::frugal_quantizer_import_state(self.raw.as_ptr(), state.as_ptr() as *const c_void, state.len()) })
    }

    /// The raw handle, still owned by `self`.
    pub fn as_ptr(&self) -> *mut sys::frugal_quantizer {
        self.raw.as_ptr()
    }
}

impl Drop for Quantizer {
    fn drop(&mut self) {
        // SAFETY: we own the quantizer; `&mut self` excludes other calls.
        unsafe { sys::frugal_quantizer_destroy(self.raw.as_ptr()) }
    }
}
