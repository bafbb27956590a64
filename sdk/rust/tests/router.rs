//! Router values against a reference computed here: top-k choice and
//! softmax weights, permute and combine, statistics, the DeepSeek-V3 bias
//! state, and the errors a caller sees.

mod common;

use common::Lcg;
use frugal::{Context, ErrorCode, Options, Router, TensorMut, TensorRef};

const TOKENS: usize = 48;
const EXPERTS: usize = 6;
const K: usize = 2;
const HIDDEN: usize = 4;

fn logits(seed: u64) -> Vec<f32> {
    let mut rng = Lcg(seed);
    (0..TOKENS * EXPERTS).map(|_| (rng.uniform() * 3.0) as f32).collect()
}

fn topk_router(context: &Context, renormalize: bool) -> Router {
    let mut options = Options::new().unwrap();
    options
        .set_int("experts", EXPERTS as i64)
        .unwrap()
        .set_int("k", K as i64)
        .unwrap()
        .set_bool("renormalize", renormalize)
        .unwrap();
    Router::new(context, "topk_softmax", Some(&options)).unwrap()
}

/// The reference: each token's experts by descending logit, and the full
/// softmax probabilities of its row (f64).
fn reference(row: &[f32]) -> (Vec<usize>, Vec<f64>) {
    let mut order: Vec<usize> = (0..row.len()).collect();
    order.sort_by(|&a, &b| row[b].partial_cmp(&row[a]).unwrap());
    let max = f64::from(row[order[0]]);
    let exps: Vec<f64> = row.iter().map(|&v| (f64::from(v) - max).exp()).collect();
    let sum: f64 = exps.iter().sum();
    (order, exps.iter().map(|e| e / sum).collect())
}

#[test]
fn top_k_and_weights_equal_the_reference() {
    let context = common::context();
    let x = logits(21);
    let view = TensorRef::new(&x, &[TOKENS as i64, EXPERTS as i64]).unwrap();
    for &renormalize in &[false, true] {
        let router = topk_router(&context, renormalize);
        let layout = router.layout();
        assert_eq!((layout.experts, layout.top_k), (EXPERTS as i32, K as i32));
        let mut plan = router.new_plan(TOKENS as i64).unwrap();
        assert_eq!(plan.shape().max_rows, (TOKENS * K) as i64, "dropless: T * k rows");
        router.route(&view, &mut plan).unwrap();
        for t in 0..TOKENS {
            let (order, probs) = reference(&x[t * EXPERTS..(t + 1) * EXPERTS]);
            let ids = &plan.expert_ids()[t * K..(t + 1) * K];
            let weights = &plan.weights()[t * K..(t + 1) * K];
            let chosen_mass: f64 = order[..K].iter().map(|&e| probs[e]).sum();
            for j in 0..K {
                assert_eq!(ids[j] as usize, order[j], "token {} choice {}", t, j);
                let want = if renormalize { probs[order[j]] / chosen_mass } else { probs[order[j]] };
                assert!((f64::from(weights[j]) - want).abs() < 1e-6, "token {}: {} vs {}", t, weights[j], want);
            }
        }
        assert!(plan.dropped().iter().all(|&d| d == 0));
        assert_eq!(plan.kept_rows(), (TOKENS * K) as i64);
        // Each expert's demand is the number of tokens that chose it.
        let mut demand = vec![0i64; EXPERTS];
        plan.expert_ids().iter().for_each(|&e| demand[e as usize] += 1);
        assert_eq!(plan.expert_demand(), demand.as_slice());
        assert_eq!(plan.expert_loads(), demand);

        let stats = router.stats(&plan).unwrap();
        assert_eq!((stats.tokens, stats.assignments, stats.kept, stats.dropped), (48, 96, 96, 0));
        assert_eq!(stats.max_load, *demand.iter().max().unwrap());
        assert!((stats.max_over_mean - stats.max_load as f64 / 16.0).abs() < 1e-12);
        assert_eq!(stats.aux_loss, plan.losses()[0]);
    }
}

#[test]
fn permute_then_combine_weights_each_tokens_rows() {
    let context = common::context();
    let router = topk_router(&context, true);
    let x = logits(5);
    let mut plan = router.new_plan(TOKENS as i64).unwrap();
    router.route(&TensorRef::new(&x, &[TOKENS as i64, EXPERTS as i64]).unwrap(), &mut plan).unwrap();

    let hidden: Vec<f32> = (0..TOKENS * HIDDEN).map(|i| i as f32).collect();
    let rows = plan.shape().max_rows as usize;
    let mut permuted = vec![0f32; rows * HIDDEN];
    router
        .permute(
            &plan,
            &TensorRef::new(&hidden, &[TOKENS as i64, HIDDEN as i64]).unwrap(),
            &mut TensorMut::new(&mut permuted, &[rows as i64, HIDDEN as i64]).unwrap(),
        )
        .unwrap();
    for r in 0..plan.kept_rows() as usize {
        let t = plan.row_token()[r] as usize;
        assert_eq!(&permuted[r * HIDDEN..(r + 1) * HIDDEN], &hidden[t * HIDDEN..(t + 1) * HIDDEN], "row {}", r);
    }
    let mut combined = vec![0f32; TOKENS * HIDDEN];
    router
        .combine(
            &plan,
            &TensorRef::new(&permuted, &[rows as i64, HIDDEN as i64]).unwrap(),
            &mut TensorMut::new(&mut combined, &[TOKENS as i64, HIDDEN as i64]).unwrap(),
        )
        .unwrap();
    // Renormalized weights sum to 1, so each token comes back as itself.
    for (i, (&c, &h)) in combined.iter().zip(&hidden).enumerate() {
        assert!((c - h).abs() <= 1e-4 * h.abs().max(1.0), "element {}: {} vs {}", i, c, h);
    }
}

#[test]
fn deepseek_bias_moves_with_update_and_survives_export() {
    let context = common::context();
    let make = || {
        let mut options = Options::new().unwrap();
        options.set_int("experts", 8).unwrap().set_int("k", 2).unwrap().set_double("gamma", 0.01).unwrap();
        Router::new(&context, "deepseek_v3", Some(&options)).unwrap()
    };
    let router = make();
    let fresh = router.export_state().unwrap();
    router.update(&[40, 0, 0, 0, 0, 0, 0, 0]).unwrap();
    let moved = router.export_state().unwrap();
    assert_ne!(fresh, moved, "the update must change the bias");

    let restored = make();
    restored.import_state(&moved).unwrap();
    assert_eq!(restored.export_state().unwrap(), moved);
    // Routing equal logits, both pick the same experts.
    let x = logits(8);
    let view = TensorRef::new(&x[..16 * 8], &[16, 8]).unwrap();
    let (mut a, mut b) = (router.new_plan(16).unwrap(), restored.new_plan(16).unwrap());
    router.route(&view, &mut a).unwrap();
    restored.route(&view, &mut b).unwrap();
    assert_eq!(a.expert_ids(), b.expert_ids());
    assert_eq!(a.weights(), b.weights());

    let err = restored.update(&[1, 2, 3]).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{}", err);
}

#[test]
fn logits_of_the_wrong_width_are_an_error_naming_the_tensor() {
    let context = common::context();
    let router = topk_router(&context, false);
    let x = vec![0f32; TOKENS * (EXPERTS + 1)];
    let mut plan = router.new_plan(TOKENS as i64).unwrap();
    let err = router
        .route(&TensorRef::new(&x, &[TOKENS as i64, EXPERTS as i64 + 1]).unwrap(), &mut plan)
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{}", err);
    assert!(err.message().contains("logits"), "{}", err.message());

    let err = Router::new(&context, "topk_softmax", None).err().expect("experts is required");
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().contains("experts"), "{}", err.message());
}

#[test]
fn expert_choice_fills_every_expert_to_capacity() {
    let context = common::context();
    let mut options = Options::new().unwrap();
    options.set_int("experts", EXPERTS as i64).unwrap().set_double("capacity_factor", 1.0).unwrap();
    let router = Router::new(&context, "expert_choice", Some(&options)).unwrap();
    assert_eq!(router.layout().top_k, 0);
    let mut plan = router.new_plan(TOKENS as i64).unwrap();
    // C = min(T, max(1, ceil(T * 1.0 / E))) = 8; R = E * C.
    assert_eq!(plan.shape().capacity, 8);
    assert_eq!(plan.shape().max_rows, 48);
    assert!(plan.expert_ids().is_empty(), "no slots for expert choice");
    let x = logits(13);
    router.route(&TensorRef::new(&x, &[TOKENS as i64, EXPERTS as i64]).unwrap(), &mut plan).unwrap();
    assert_eq!(plan.expert_loads(), vec![8; EXPERTS]);
    // Each expert took its 8 tokens of highest router probability (the
    // softmax over a token's experts): no unchosen token scores higher.
    let probs: Vec<f64> = (0..TOKENS).flat_map(|t| reference(&x[t * EXPERTS..(t + 1) * EXPERTS]).1).collect();
    for e in 0..EXPERTS {
        let rows = plan.expert_offsets()[e] as usize..plan.expert_offsets()[e + 1] as usize;
        let chosen: Vec<usize> = plan.row_token()[rows].iter().map(|&t| t as usize).collect();
        let worst_chosen = chosen.iter().map(|&t| probs[t * EXPERTS + e]).fold(f64::INFINITY, f64::min);
        for t in (0..TOKENS).filter(|t| !chosen.contains(t)) {
            assert!(probs[t * EXPERTS + e] <= worst_chosen + 1e-7, "expert {} skipped token {}", e, t);
        }
    }
}
