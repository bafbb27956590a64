//! Tour steps 4 and 5: topk_softmax routing checked against a reference
//! computed here, and an E4M3 quantize / dequantize round trip with
//! current scaling.

use frugal::{Context, DType, Options, QuantizeOutputs, Quantizer, Router, TensorMut, TensorRef};

use crate::check::{ensure, StepResult};
use crate::random::Lcg;

const TOKENS: usize = 64;
const EXPERTS: usize = 8;
const K: usize = 2;

/// The indices of the largest and second-largest logits of a row (the
/// lower index first on ties, as a stable sort would).
fn top_two(row: &[f32]) -> (usize, usize) {
    let mut order: Vec<usize> = (0..row.len()).collect();
    order.sort_by(|&a, &b| row[b].partial_cmp(&row[a]).expect("finite logits"));
    (order[0], order[1])
}

/// Step 4.
pub fn route(context: &Context) -> StepResult {
    let mut rng = Lcg::new(11);
    let logits: Vec<f32> = (0..TOKENS * EXPERTS).map(|_| rng.uniform() * 4.0f32).collect();
    let mut options = Options::new()?;
    // renormalize is off by default (weights would be the full softmax's
    // probabilities); the tour checks the softmax over the two chosen.
    options
        .set_int("experts", EXPERTS as i64)?
        .set_int("k", K as i64)?
        .set_double("capacity_factor", 8.0)?
        .set_bool("renormalize", true)?;
    let router = Router::new(context, "topk_softmax", Some(&options))?;
    let mut plan = router.new_plan(TOKENS as i64)?;
    router.route(&TensorRef::new(&logits, &[TOKENS as i64, EXPERTS as i64])?, &mut plan)?;

    if let Some(slot) = plan.dropped().iter().position(|&d| d != 0) {
        return ensure(false, || format!("route: token {}'s choice {} was dropped", slot / K, slot % K));
    }
    for t in 0..TOKENS {
        let row = &logits[t * EXPERTS..(t + 1) * EXPERTS];
        let ids = &plan.expert_ids()[t * K..(t + 1) * K];
        let w = &plan.weights()[t * K..(t + 1) * K];
        let (best, second) = top_two(row);
        ensure(ids[0] as usize == best && ids[1] as usize == second, || {
            format!(
                "route: token {} went to experts {} and {}; its two largest logits are experts {} and {}",
                t, ids[0], ids[1], best, second
            )
        })?;
        // Softmax restricted to the two chosen experts (renormalize).
        let e_second = (f64::from(row[second]) - f64::from(row[best])).exp();
        let want = [1.0 / (1.0 + e_second), e_second / (1.0 + e_second)];
        let sum = f64::from(w[0]) + f64::from(w[1]);
        ensure((sum - 1.0).abs() <= 1e-5, || format!("route: token {}'s weights sum to {:.7}, not 1", t, sum))?;
        ensure((f64::from(w[0]) - want[0]).abs() <= 1e-5 && (f64::from(w[1]) - want[1]).abs() <= 1e-5, || {
            format!(
                "route: token {}'s weights are {:.7} {:.7}; the softmax of its two logits gives {:.7} {:.7}",
                t, w[0], w[1], want[0], want[1]
            )
        })?;
    }
    let loads = plan.expert_demand();
    let load_sum: i64 = loads.iter().sum();
    ensure(load_sum == (TOKENS * K) as i64, || format!("route: expert loads sum to {}, not {}", load_sum, TOKENS * K))?;
    let loads_text: Vec<String> = loads.iter().map(|l| l.to_string()).collect();
    println!(
        "route: {} tokens to {} experts, top-{}, none dropped, loads {} (sum {})",
        TOKENS,
        EXPERTS,
        K,
        loads_text.join(" "),
        load_sum
    );
    Ok(())
}

const ROWS: usize = 32;
const COLS: usize = 64;
const E4M3_MAX: f64 = 448.0;

/// Step 5.
pub fn quantize(context: &Context) -> StepResult {
    let mut rng = Lcg::new(13);
    let x: Vec<f32> = (0..ROWS * COLS).map(|_| rng.uniform() * 3.0f32).collect();
    let mut options = Options::new()?;
    options.set_string("format", "e4m3")?.set_string("recipe", "current")?;
    let quantizer = Quantizer::new(context, "quant_fp8", Some(&options))?;
    let layout = quantizer.layout();
    ensure(layout.dtype == DType::F8E4M3, || format!("quantize: the quantizer produces {:?}, not E4M3", layout.dtype))?;

    let shape = [ROWS as i64, COLS as i64];
    let grid = quantizer.scale_shape(shape[0], shape[1])?;
    let grid_len = (grid[0] * grid[1]) as usize;
    let mut codes = vec![0u8; ROWS * COLS];
    let (mut scale, mut scale_inv) = (vec![0f32; grid_len], vec![0f32; grid_len]);
    let mut y = vec![0f32; ROWS * COLS];
    {
        let mut codes_t = TensorMut::with_dtype(&mut codes, layout.dtype, &shape)?;
        let mut scale_t = TensorMut::new(&mut scale, &grid)?;
        let mut scale_inv_t = TensorMut::new(&mut scale_inv, &grid)?;
        let mut outputs = QuantizeOutputs::new(&mut codes_t, &mut scale_inv_t);
        outputs.scale = Some(&mut scale_t);
        quantizer.quantize(&TensorRef::new(&x, &shape)?, outputs)?;
    }
    quantizer.dequantize(
        &TensorRef::with_dtype(&codes, layout.dtype, &shape)?,
        &TensorRef::new(&scale_inv, &grid)?,
        &mut TensorMut::new(&mut y, &shape)?,
    )?;

    ensure(grid_len == 1, || format!("quantize: current scaling gave a {:?} scale grid, not one scale", grid))?;
    let amax = x.iter().fold(0f64, |m, &v| m.max(f64::from(v).abs()));
    let scale = f64::from(scale[0]);
    ensure((amax * scale - E4M3_MAX).abs() <= 1e-6 * E4M3_MAX, || {
        format!("quantize: the scale {:.9} maps amax {:.9} to {:.9}, not 448", scale, amax, amax * scale)
    })?;
    let mut worst = 0f64;
    for (i, (&xi, &yi)) in x.iter().zip(&y).enumerate() {
        // Half a step of E4M3: 3 mantissa bits (2^-4 relative), or half the
        // subnormal step 2^-9 brought back to the input's scale.
        let error = (f64::from(xi) - f64::from(yi)).abs();
        let bound = f64::from(xi).abs() / 16.0 + amax / E4M3_MAX * 2f64.powi(-10);
        ensure(error <= bound, || {
            format!("quantize: element {}: {:.9} came back as {:.9} (error {:.3e} > bound {:.3e})", i, xi, yi, error, bound)
        })?;
        worst = worst.max(error);
    }
    println!(
        "quantize: e4m3 current scaling of [{}, {}]: amax {:.6}, scale {:.6}, largest round-trip error {:.6}",
        ROWS, COLS, amax, scale, worst
    );
    Ok(())
}
