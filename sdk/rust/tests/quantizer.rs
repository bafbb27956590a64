//! Quantizer values: E4M3 scale and round-trip bound, delayed scaling's
//! state surviving export and import, the FP8 GEMM against a reference
//! computed from the dequantized operands, and the errors a caller sees.

mod common;

use common::Lcg;
use frugal::{
    sys, Context, DType, ErrorCode, GemmOperand, GemmOutput, Options, QuantizeOutputs, Quantizer, TensorMut, TensorRef,
};

const ROWS: usize = 16;
const COLS: usize = 32;
const SHAPE: [i64; 2] = [ROWS as i64, COLS as i64];

fn quantizer(context: &Context, recipe: &str) -> Quantizer {
    let mut options = Options::new().unwrap();
    options.set_string("format", "e4m3").unwrap().set_string("recipe", recipe).unwrap();
    Quantizer::new(context, "quant_fp8", Some(&options)).unwrap()
}

fn input(seed: u64, magnitude: f64) -> Vec<f32> {
    let mut rng = Lcg(seed);
    (0..ROWS * COLS).map(|_| (rng.uniform() * magnitude) as f32).collect()
}

/// Quantizes `x`; returns (codes, scale_inv, amax, fake).
fn quantize(q: &Quantizer, x: &[f32], flags: u32) -> (Vec<u8>, f32, f32, Vec<f32>) {
    let (mut codes, mut scale_inv, mut amax, mut fake) = (vec![0u8; x.len()], [0f32], [0f32], vec![0f32; x.len()]);
    {
        let mut codes_t = TensorMut::with_dtype(&mut codes, DType::F8E4M3, &SHAPE).unwrap();
        let mut scale_inv_t = TensorMut::new(&mut scale_inv, &[1]).unwrap();
        let mut amax_t = TensorMut::new(&mut amax, &[1]).unwrap();
        let mut fake_t = TensorMut::new(&mut fake, &SHAPE).unwrap();
        let mut out = QuantizeOutputs::new(&mut codes_t, &mut scale_inv_t);
        out.amax = Some(&mut amax_t);
        out.fake = Some(&mut fake_t);
        out.flags = flags;
        q.quantize(&TensorRef::new(x, &SHAPE).unwrap(), out).unwrap();
    }
    (codes, scale_inv[0], amax[0], fake)
}

#[test]
fn current_scaling_maps_amax_to_448_and_round_trips_within_half_a_step() {
    let context = common::context();
    let q = quantizer(&context, "current");
    let layout = q.layout();
    assert_eq!(layout.dtype, DType::F8E4M3);
    assert_eq!(layout.scaling_mode, sys::FRUGAL_SCALING_CURRENT);
    assert_eq!(q.scale_shape(ROWS as i64, COLS as i64).unwrap(), [1, 1]);

    let x = input(5, 3.0);
    let want_amax = x.iter().fold(0f32, |m, v| m.max(v.abs()));
    let (codes, scale_inv, amax, fake) = quantize(&q, &x, 0);
    assert_eq!(amax, want_amax);
    assert!((f64::from(want_amax) / f64::from(scale_inv) - 448.0).abs() < 448.0 * 1e-6, "scale_inv {}", scale_inv);

    let mut y = vec![0f32; x.len()];
    q.dequantize(
        &TensorRef::with_dtype(&codes, DType::F8E4M3, &SHAPE).unwrap(),
        &TensorRef::new(&[scale_inv], &[1]).unwrap(),
        &mut TensorMut::new(&mut y, &SHAPE).unwrap(),
    )
    .unwrap();
    // Dequantize gives back exactly the fake-quantized copy.
    assert_eq!(y, fake);
    for (i, (&xi, &yi)) in x.iter().zip(&y).enumerate() {
        let bound = f64::from(xi).abs() / 16.0 + f64::from(want_amax) / 448.0 * 2f64.powi(-10);
        assert!((f64::from(xi) - f64::from(yi)).abs() <= bound, "element {}: {} -> {}", i, xi, yi);
    }
    // The largest magnitude is exactly representable: 448 * scale_inv.
    let i_max = x.iter().position(|v| v.abs() == want_amax).unwrap();
    assert!((y[i_max].abs() - want_amax).abs() <= want_amax * 1e-6);
}

#[test]
fn delayed_scaling_state_survives_export_and_import() {
    let context = common::context();
    let q = quantizer(&context, "delayed");
    // The first call uses scale 1; it records the amax for the next.
    let (_, first_scale_inv, _, _) = quantize(&q, &input(1, 2.0), 0);
    assert_eq!(first_scale_inv, 1.0);
    let (_, _, amax2, _) = quantize(&q, &input(2, 4.0), 0);
    let state = q.export_state().unwrap();
    assert!(!state.is_empty());

    let restored = quantizer(&context, "delayed");
    restored.import_state(&state).unwrap();
    let x = input(3, 1.0);
    let a = quantize(&q, &x, sys::FRUGAL_QUANTIZE_FREEZE_SCALE);
    let b = quantize(&restored, &x, sys::FRUGAL_QUANTIZE_FREEZE_SCALE);
    assert_eq!(a.0, b.0, "codes differ after the import");
    assert_eq!(a.1, b.1);
    // The scale now comes from the history's maximum (amax of step 2).
    assert!((f64::from(a.1) - f64::from(amax2) / 448.0).abs() < 1e-6 * f64::from(a.1), "{} vs {}", a.1, amax2);

    let err = restored.import_state(&state[..state.len() / 2]).unwrap_err();
    assert!(matches!(err.code(), ErrorCode::DataCorrupted | ErrorCode::InvalidArgument), "{:?}", err);
    assert!(!err.message().is_empty());
}

#[test]
fn mismatched_tensors_and_options_are_native_errors() {
    let context = common::context();
    let q = quantizer(&context, "current");
    let x = input(9, 1.0);
    // Codes of the wrong shape: the core names the tensor.
    let mut codes = vec![0u8; x.len()];
    let mut scale_inv = [0f32];
    let mut codes_t = TensorMut::with_dtype(&mut codes, DType::F8E4M3, &[COLS as i64, ROWS as i64]).unwrap();
    let mut scale_inv_t = TensorMut::new(&mut scale_inv, &[1]).unwrap();
    let err = q
        .quantize(&TensorRef::new(&x, &SHAPE).unwrap(), QuantizeOutputs::new(&mut codes_t, &mut scale_inv_t))
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{}", err);
    assert!(err.message().contains("output"), "{}", err.message());

    let mut options = Options::new().unwrap();
    options.set_string("format", "e9m9").unwrap();
    let err = Quantizer::new(&context, "quant_fp8", Some(&options)).err().unwrap();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().starts_with("quantizer 'quant_fp8': "), "{}", err.message());
    assert!(err.message().contains("format"), "{}", err.message());
}

/// An FP8 GEMM operand: per-tensor codes of `x` `[rows, cols]` and their
/// inverse scale, plus the dequantized values.
struct Fp8Matrix {
    codes: Vec<u8>,
    scale_inv: [f32; 1],
    dequantized: Vec<f32>,
    dtype: DType,
    shape: [i64; 2],
}

fn fp8_matrix(q: &Quantizer, x: &[f32], rows: usize, cols: usize) -> Fp8Matrix {
    let shape = [rows as i64, cols as i64];
    let dtype = q.layout().dtype;
    let (mut codes, mut scale_inv, mut dequantized) = (vec![0u8; x.len()], [0f32], vec![0f32; x.len()]);
    {
        let mut codes_t = TensorMut::with_dtype(&mut codes, dtype, &shape).unwrap();
        let mut scale_inv_t = TensorMut::new(&mut scale_inv, &[1]).unwrap();
        q.quantize(&TensorRef::new(x, &shape).unwrap(), QuantizeOutputs::new(&mut codes_t, &mut scale_inv_t)).unwrap();
    }
    q.dequantize(
        &TensorRef::with_dtype(&codes, dtype, &shape).unwrap(),
        &TensorRef::new(&scale_inv, &[1]).unwrap(),
        &mut TensorMut::new(&mut dequantized, &shape).unwrap(),
    )
    .unwrap();
    Fp8Matrix { codes, scale_inv, dequantized, dtype, shape }
}

fn format_quantizer(context: &Context, format: &str) -> Quantizer {
    let mut options = Options::new().unwrap();
    options.set_string("format", format).unwrap().set_string("recipe", "current").unwrap();
    Quantizer::new(context, "quant_fp8", Some(&options)).unwrap()
}

/// Runs D = alpha * A * B^T into an f32 D.
fn gemm_f32(q: &Quantizer, a: &Fp8Matrix, b: &Fp8Matrix, alpha: f32) -> frugal::Result<Vec<f32>> {
    let (m, n) = (a.shape[0], b.shape[0]);
    let mut d = vec![f32::NAN; (m * n) as usize];
    let (a_codes, a_inv) = (TensorRef::with_dtype(&a.codes, a.dtype, &a.shape)?, TensorRef::new(&a.scale_inv, &[1])?);
    let (b_codes, b_inv) = (TensorRef::with_dtype(&b.codes, b.dtype, &b.shape)?, TensorRef::new(&b.scale_inv, &[1])?);
    let mut d_t = TensorMut::new(&mut d, &[m, n])?;
    q.gemm(
        &GemmOperand::new(&a_codes, &a_inv),
        &GemmOperand::new(&b_codes, &b_inv),
        GemmOutput::new(&mut d_t),
        alpha,
        0,
    )?;
    drop(d_t);
    Ok(d)
}

const GEMM_M: usize = 9;
const GEMM_N: usize = 6;
const GEMM_K: usize = 40;
const ALPHA: f32 = 0.75;

#[test]
fn gemm_on_host_tensors_matches_the_product_of_the_dequantized_operands() {
    let context = common::context();
    let qa = format_quantizer(&context, "e5m2");
    let qb = format_quantizer(&context, "e4m3");
    let mut rng = Lcg(17);
    let xa: Vec<f32> = (0..GEMM_M * GEMM_K).map(|_| rng.uniform() as f32).collect();
    let xb: Vec<f32> = (0..GEMM_N * GEMM_K).map(|_| (rng.uniform() * 2.0) as f32).collect();
    let a = fp8_matrix(&qa, &xa, GEMM_M, GEMM_K);
    let b = fp8_matrix(&qb, &xb, GEMM_N, GEMM_K);
    assert_eq!((a.dtype, b.dtype), (DType::F8E5M2, DType::F8E4M3));

    let d = gemm_f32(&qa, &a, &b, ALPHA).unwrap();
    for i in 0..GEMM_M {
        for j in 0..GEMM_N {
            let (mut exact, mut magnitude) = (0f64, 0f64);
            for k in 0..GEMM_K {
                let p = f64::from(a.dequantized[i * GEMM_K + k]) * f64::from(b.dequantized[j * GEMM_K + k]);
                exact += p;
                magnitude += p.abs();
            }
            exact *= f64::from(ALPHA);
            magnitude *= f64::from(ALPHA);
            // Tolerance: the core sums the decoded codes' products in fp32
            // (each product exact: 3 x 4 significant bits), so recursive
            // summation adds at most (k - 1) u sum|p| (u = 2^-24); then the
            // scale product sa * sb, its product with alpha and the final
            // multiply round once each, and each dequantized operand here
            // carries one rounding of code * scale_inv: k + 4 roundings of
            // at most u * sum|p| in all, k + 8 for margin.
            let bound = (GEMM_K as f64 + 8.0) * 2f64.powi(-24) * magnitude;
            let got = f64::from(d[i * GEMM_N + j]);
            assert!((got - exact).abs() <= bound, "D[{}][{}] = {} but the reference is {} (bound {})", i, j, got, exact, bound);
        }
    }
    // A non-trivial product: the tolerance above is tiny next to D.
    assert!(d.iter().any(|v| v.abs() > 0.5), "{:?}", d);

    // FP8 D: multiplied by scale before the E4M3 cast; amax gets max |D|
    // before scaling, computed by the same kernel as the f32 run.
    let d_scale = [0.125f32];
    let (mut d8, mut amax) = (vec![0u8; GEMM_M * GEMM_N], [0f32]);
    {
        let (a_codes, a_inv) = (TensorRef::with_dtype(&a.codes, a.dtype, &a.shape).unwrap(), TensorRef::new(&a.scale_inv, &[1]).unwrap());
        let (b_codes, b_inv) = (TensorRef::with_dtype(&b.codes, b.dtype, &b.shape).unwrap(), TensorRef::new(&b.scale_inv, &[1]).unwrap());
        let scale_t = TensorRef::new(&d_scale, &[1]).unwrap();
        let mut d8_t = TensorMut::with_dtype(&mut d8, DType::F8E4M3, &[GEMM_M as i64, GEMM_N as i64]).unwrap();
        let mut amax_t = TensorMut::new(&mut amax, &[1]).unwrap();
        let out = GemmOutput { d: &mut d8_t, scale: Some(&scale_t), amax: Some(&mut amax_t) };
        qa.gemm(&GemmOperand::new(&a_codes, &a_inv), &GemmOperand::new(&b_codes, &b_inv), out, ALPHA, 0).unwrap();
    }
    let d_amax = d.iter().fold(0f32, |m, v| m.max(v.abs()));
    assert_eq!(amax[0], d_amax);
    // Decode the E4M3 D with scale_inv = 1 / scale: each element is D
    // rounded to E4M3, within half a step (2^-4 relative for normals, 2^-10
    // absolute in the subnormal range), times 8.
    let mut back = vec![0f32; d8.len()];
    qb.dequantize(
        &TensorRef::with_dtype(&d8, DType::F8E4M3, &[GEMM_M as i64, GEMM_N as i64]).unwrap(),
        &TensorRef::new(&[1.0 / d_scale[0]], &[1]).unwrap(),
        &mut TensorMut::new(&mut back, &[GEMM_M as i64, GEMM_N as i64]).unwrap(),
    )
    .unwrap();
    for (idx, (&got, &want)) in back.iter().zip(&d).enumerate() {
        let bound = f64::from(want.abs()) / 16.0 + 8.0 * 2f64.powi(-10);
        assert!((f64::from(got) - f64::from(want)).abs() <= bound, "D8[{}] = {} but D = {}", idx, got, want);
    }
}

#[test]
fn gemm_refuses_operands_it_cannot_multiply_with_native_errors() {
    let context = common::context();
    let e5 = format_quantizer(&context, "e5m2");
    let e4 = format_quantizer(&context, "e4m3");
    let mut rng = Lcg(3);
    let x: Vec<f32> = (0..GEMM_M * GEMM_K).map(|_| rng.uniform() as f32).collect();
    let a5 = fp8_matrix(&e5, &x, GEMM_M, GEMM_K);
    let b5 = fp8_matrix(&e5, &x[..GEMM_N * GEMM_K], GEMM_N, GEMM_K);
    let err = gemm_f32(&e5, &a5, &b5, 1.0).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Unsupported, "{}", err);
    assert!(err.message().contains("float8_e5m2"), "{}", err.message());

    // Inner extents differ: [9, 40] x [8, 45]^T.
    let b4 = fp8_matrix(&e4, &x[..8 * 45], 8, 45);
    let err = gemm_f32(&e4, &a5, &b4, 1.0).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{}", err);
    assert!(err.message().contains("inner"), "{}", err.message());

    // A non-finite alpha.
    let b4 = fp8_matrix(&e4, &x[..GEMM_N * GEMM_K], GEMM_N, GEMM_K);
    let err = gemm_f32(&e4, &a5, &b4, f32::INFINITY).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{}", err);
    assert!(err.message().contains("alpha"), "{}", err.message());

    // An FP8 D without its scale.
    let mut d8 = vec![0u8; GEMM_M * GEMM_N];
    let (a_codes, a_inv) = (TensorRef::with_dtype(&a5.codes, a5.dtype, &a5.shape).unwrap(), TensorRef::new(&a5.scale_inv, &[1]).unwrap());
    let (b_codes, b_inv) = (TensorRef::with_dtype(&b4.codes, b4.dtype, &b4.shape).unwrap(), TensorRef::new(&b4.scale_inv, &[1]).unwrap());
    let mut d8_t = TensorMut::with_dtype(&mut d8, DType::F8E4M3, &[GEMM_M as i64, GEMM_N as i64]).unwrap();
    let err = e4
        .gemm(&GemmOperand::new(&a_codes, &a_inv), &GemmOperand::new(&b_codes, &b_inv), GemmOutput::new(&mut d8_t), 1.0, 0)
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{}", err);
    assert!(err.message().contains("scale"), "{}", err.message());
}
