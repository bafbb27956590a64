//! ABI 2.4 across ranks, in one process over a "local" comm (a group of
//! one): a router with `ep_comm` dispatches and combines exactly as the
//! same router without one permutes and combines, a scheduler with a comm
//! decides as one without, and a quantizer with `amax_comm` quantizes as
//! one without.

mod common;

use common::Lcg;
use frugal::{
    sys, Comm, Context, DType, ErrorCode, Options, QuantizeOutputs, Quantizer, RouteEpShape, Router, Scheduler,
    SchedulerConfig, Telemetry, TensorMut, TensorRef,
};

const TOKENS: usize = 48;
const EXPERTS: usize = 8;
const HIDDEN: usize = 16;

fn local(context: &Context) -> Comm {
    Comm::new(context, "local", None).expect("the local comm")
}

/// `name`'s options, with `ep_comm` when `comm` is given.
fn router(context: &Context, name: &str, comm: Option<&Comm>) -> Router {
    let mut options = Options::new().unwrap();
    options.set_int("experts", EXPERTS as i64).unwrap();
    match name {
        // Capacity 1 drops rows: the kept rows are fewer than max_rows.
        "topk_softmax" => {
            options.set_int("k", 2).unwrap().set_double("capacity_factor", 1.0).unwrap();
        }
        "deepseek_v3" => {
            options.set_int("k", 2).unwrap();
        }
        _ => {}
    }
    if let Some(comm) = comm {
        options.set_comm("ep_comm", comm).unwrap();
    }
    Router::new(context, name, Some(&options)).unwrap()
}

fn values(seed: u64, count: usize, scale: f64) -> Vec<f32> {
    let mut rng = Lcg(seed);
    (0..count).map(|_| (rng.uniform() * scale) as f32).collect()
}

#[test]
fn ep_dispatch_and_combine_of_one_rank_equal_permute_and_combine() {
    let context = common::context();
    let comm = local(&context);
    let logits = values(11, TOKENS * EXPERTS, 4.0);
    let logits = TensorRef::new(&logits, &[TOKENS as i64, EXPERTS as i64]).unwrap();
    let x = values(3, TOKENS * HIDDEN, 1.0);
    let x_view = TensorRef::new(&x, &[TOKENS as i64, HIDDEN as i64]).unwrap();
    for name in ["topk_softmax", "deepseek_v3", "expert_choice"] {
        let grouped = router(&context, name, Some(&comm));
        let alone = router(&context, name, None);
        assert_eq!((grouped.layout().ep_rank, grouped.layout().ep_ranks), (0, 1), "{}", name);
        assert_eq!((alone.layout().ep_rank, alone.layout().ep_ranks), (0, 0), "{}", name);

        let mut plan = grouped.new_plan(TOKENS as i64).unwrap();
        let mut reference = alone.new_plan(TOKENS as i64).unwrap();
        assert!(reference.ep_tokens().is_empty() && reference.ep_rows().is_empty());
        grouped.route(&logits, &mut plan).unwrap();
        alone.route(&logits, &mut reference).unwrap();
        assert_eq!(plan.ep_tokens(), &[TOKENS as i64][..], "{}", name);
        assert_eq!(plan.ep_rows(), reference.expert_loads().as_slice(), "{}", name);
        assert_eq!(plan.expert_demand(), reference.expert_demand(), "{}", name);
        let kept = reference.kept_rows();

        let shape = grouped.ep_shape(&plan).unwrap();
        let want = RouteEpShape {
            rank: 0,
            ranks: 1,
            first_expert: 0,
            local_experts: EXPERTS as i32,
            group_tokens: TOKENS as i64,
            token_offset: 0,
            sent_rows: kept,
            received_rows: kept,
        };
        assert_eq!(shape, want, "{}", name);

        // The plain path: permute into R rows, combine back.
        let max_rows = reference.shape().max_rows as usize;
        let mut permuted = vec![0f32; max_rows * HIDDEN];
        alone
            .permute(&reference, &x_view, &mut TensorMut::new(&mut permuted, &[max_rows as i64, HIDDEN as i64]).unwrap())
            .unwrap();
        let mut combined = vec![0f32; TOKENS * HIDDEN];
        alone
            .combine(
                &reference,
                &TensorRef::new(&permuted, &[max_rows as i64, HIDDEN as i64]).unwrap(),
                &mut TensorMut::new(&mut combined, &[TOKENS as i64, HIDDEN as i64]).unwrap(),
            )
            .unwrap();

        // The expert-parallel path over a group of one.
        let received = shape.received_rows as usize;
        let mut rows = vec![0f32; received * HIDDEN];
        let mut offsets = vec![0i64; shape.local_experts as usize + 1];
        let mut row_token = vec![0i64; received];
        grouped
            .ep_dispatch(
                &plan,
                &x_view,
                &mut TensorMut::new(&mut rows, &[received as i64, HIDDEN as i64]).unwrap(),
                Some(&mut offsets),
                Some(&mut row_token),
            )
            .unwrap();
        assert_eq!(rows.as_slice(), &permuted[..kept as usize * HIDDEN], "{}: rows", name);
        assert_eq!(offsets.as_slice(), reference.expert_offsets(), "{}: offsets", name);
        assert_eq!(row_token.as_slice(), &reference.row_token()[..kept as usize], "{}: row_token", name);
        let mut y = vec![f32::NAN; TOKENS * HIDDEN];
        grouped
            .ep_combine(
                &plan,
                &TensorRef::new(&rows, &[received as i64, HIDDEN as i64]).unwrap(),
                &mut TensorMut::new(&mut y, &[TOKENS as i64, HIDDEN as i64]).unwrap(),
            )
            .unwrap();
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
        assert_eq!(bits(&y), bits(&combined), "{}: combine, bit for bit", name);

        // The index outputs are optional.
        grouped
            .ep_dispatch(&plan, &x_view, &mut TensorMut::new(&mut rows, &[received as i64, HIDDEN as i64]).unwrap(), None, None)
            .unwrap();
    }
}

#[test]
fn a_router_without_ep_comm_has_no_ep_shape() {
    let context = common::context();
    let alone = router(&context, "topk_softmax", None);
    let logits = values(11, TOKENS * EXPERTS, 4.0);
    let mut plan = alone.new_plan(TOKENS as i64).unwrap();
    alone.route(&TensorRef::new(&logits, &[TOKENS as i64, EXPERTS as i64]).unwrap(), &mut plan).unwrap();
    common::expect_error(alone.ep_shape(&plan), ErrorCode::FailedPrecondition, &["ep_comm"]);
}

fn scheduler_config() -> SchedulerConfig {
    let mut cosine = Options::new().unwrap();
    cosine.set_double("lr", 1e-3).unwrap().set_int("warmup_steps", 10).unwrap().set_int("total_steps", 200).unwrap();
    let mut cadence = Options::new().unwrap();
    cadence.set_double("heartbeat_interval_s", 100.0).unwrap();
    SchedulerConfig::new().schedule("cosine", Some(cosine)).unwrap().policy("checkpoint_cadence", Some(cadence)).unwrap()
}

#[test]
fn a_scheduler_across_one_rank_decides_as_one_process() {
    let context = common::context();
    let comm = local(&context);
    let mut grouped = Scheduler::with_comm(&context, &scheduler_config(), &comm).unwrap();
    drop(comm); // the scheduler keeps a sub-group of its own
    let mut alone = Scheduler::new(&context, &scheduler_config()).unwrap();
    for i in 1..=20i64 {
        let record = Telemetry {
            nodes: 2,
            step: 5 * i,
            tokens: 5 * i * 1024,
            loss: 3.0 - 0.01 * i as f64,
            wall_time_s: 20.0 * i as f64,
            price_per_node_hour: 2.0,
            resource: sys::FRUGAL_RESOURCE_SPOT,
            ..Telemetry::default()
        };
        assert_eq!(grouped.step(&record).unwrap(), alone.step(&record).unwrap(), "record {}", i);
    }
    assert_eq!(grouped.ledger().unwrap(), alone.ledger().unwrap());
    assert_eq!(grouped.export_state().unwrap(), alone.export_state().unwrap());
}

#[test]
fn amax_comm_of_one_rank_changes_nothing() {
    let context = common::context();
    let comm = local(&context);
    let shape = [16i64, 32];
    for recipe in ["delayed", "current"] {
        let make = |comm: Option<&Comm>| {
            let mut options = Options::new().unwrap();
            options.set_string("format", "e4m3").unwrap().set_string("recipe", recipe).unwrap();
            if let Some(comm) = comm {
                options.set_comm("amax_comm", comm).unwrap();
            }
            Quantizer::new(&context, "quant_fp8", Some(&options)).unwrap()
        };
        let (grouped, alone) = (make(Some(&comm)), make(None));
        for seed in 1..=2 {
            let x = values(seed, 16 * 32, 3.0);
            let run = |q: &Quantizer| {
                let (mut codes, mut scale_inv) = (vec![0u8; x.len()], [0f32]);
                {
                    let mut codes_t = TensorMut::with_dtype(&mut codes, DType::F8E4M3, &shape).unwrap();
                    let mut scale_inv_t = TensorMut::new(&mut scale_inv, &[1]).unwrap();
                    q.quantize(&TensorRef::new(&x, &shape).unwrap(), QuantizeOutputs::new(&mut codes_t, &mut scale_inv_t))
                        .unwrap();
                }
                (codes, scale_inv[0])
            };
            assert_eq!(run(&grouped), run(&alone), "{} call {}", recipe, seed);
        }
        assert_eq!(grouped.export_state().unwrap(), alone.export_state().unwrap(), "{}", recipe);
    }
}

#[test]
fn ep_expert_blocks_follow_the_header_macros() {
    // FRUGAL_ROUTE_EP_EXPERTS / _FIRST: E / W each, the first E % W ranks one more.
    let (experts, firsts): (Vec<i32>, Vec<i32>) =
        (0..3).map(|r| (sys::frugal_route_ep_experts(8, 3, r), sys::frugal_route_ep_first(8, 3, r))).unzip();
    assert_eq!((experts, firsts), (vec![3, 3, 2], vec![0, 3, 6]));
    assert_eq!((sys::frugal_route_ep_experts(8, 1, 0), sys::frugal_route_ep_first(8, 1, 0)), (8, 0));
}
