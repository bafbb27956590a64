//! Quantizer values: E4M3 scale and round-trip bound, delayed scaling's
//! state surviving export and import, and the errors a caller sees.

mod common;

use common::Lcg;
use frugal::{sys, Context, DType, ErrorCode, Options, QuantizeOutputs, Quantizer, TensorMut, TensorRef};

const ROWS: usize = 16;
const COLS: usize = 32;
const SHAPE: [i64; 2] = [ROWS as i64, COLS as i64];

fn quantizer(context: &Context, recipe: &str) -> Quantizer {
    let mut options = Options::new().unwrap();
    options.set_str("format", "e4m3").unwrap().set_str("recipe", recipe).unwrap();
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
    options.set_str("format", "e9m9").unwrap();
    let err = Quantizer::new(&context, "quant_fp8", Some(&options)).err().unwrap();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().starts_with("quantizer 'quant_fp8': "), "{}", err.message());
    assert!(err.message().contains("format"), "{}", err.message());
}
