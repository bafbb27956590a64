//! Scheduler values: the decision's lr is the schedule's, money in the
//! ledger is conserved and equals the price paid, state export and import
//! reproduce later decisions, and the errors a caller sees.

mod common;

use frugal::{sys, ErrorCode, Options, Schedule, Scheduler, SchedulerConfig, Telemetry};

fn cosine() -> Options {
    let mut options = Options::new().unwrap();
    options
        .set_double("lr", 1e-3)
        .unwrap()
        .set_double("min_lr", 1e-4)
        .unwrap()
        .set_int("warmup_steps", 10)
        .unwrap()
        .set_int("total_steps", 200)
        .unwrap();
    options
}

fn config() -> SchedulerConfig {
    let mut cadence = Options::new().unwrap();
    cadence.set_double("heartbeat_interval_s", 100.0).unwrap();
    SchedulerConfig::new().schedule("cosine", Some(cosine())).unwrap().policy("checkpoint_cadence", Some(cadence)).unwrap()
}

/// Record `i`: 20 s and 5 steps each, 3 nodes, spot at $2 then reserved at $3.
fn record(i: i64) -> Telemetry {
    Telemetry {
        nodes: 3,
        step: 5 * i,
        tokens: 5 * i * 1024,
        loss: 3.0 - 0.01 * i as f64,
        wall_time_s: 20.0 * i as f64,
        price_per_node_hour: if i <= 10 { 2.0 } else { 3.0 },
        resource: if i <= 10 { sys::FRUGAL_RESOURCE_SPOT } else { sys::FRUGAL_RESOURCE_RESERVED },
        ..Telemetry::default()
    }
}

#[test]
fn decisions_follow_the_schedule_and_the_ledger_conserves_money() {
    let context = common::context();
    let mut scheduler = Scheduler::new(&context, &config()).unwrap();
    let schedule = Schedule::new(&context, "cosine", Some(&cosine())).unwrap();
    let mut heartbeats = 0;
    for i in 1..=20 {
        let decision = scheduler.step(&record(i)).unwrap();
        assert_eq!(decision.lr, schedule.lr(5 * i).unwrap(), "record {}", i);
        assert_eq!(decision.target_nodes, 3);
        assert_eq!(decision.stop, sys::FRUGAL_STOP_NONE);
        if decision.checkpoint == sys::FRUGAL_CKPT_HEARTBEAT {
            heartbeats += 1;
            assert!(decision.reason.contains("checkpoint_cadence"), "reason: {}", decision.reason);
        }
    }
    assert!(heartbeats > 0);
    let ledger = scheduler.ledger().unwrap();
    // 10 intervals of 20 s on spot at $2, 10 on reserved at $3, 3 nodes.
    let spot = 200.0 * 3.0 * 2.0 / 3600.0;
    let reserved = 200.0 * 3.0 * 3.0 / 3600.0;
    assert!((ledger.spot_dollars - spot).abs() < 1e-9, "{:?}", ledger);
    assert!((ledger.reserved_dollars - reserved).abs() < 1e-9, "{:?}", ledger);
    assert!((ledger.dollars - (spot + reserved)).abs() < 1e-9);
    let by_use = ledger.productive_dollars + ledger.stall_dollars + ledger.lost_dollars;
    assert!((ledger.dollars - by_use).abs() < 1e-9);
    assert_eq!(ledger.wall_s, 400.0);
    assert!((ledger.gpu_hours - 3.0 * 400.0 / 3600.0).abs() < 1e-12);
    assert_eq!(ledger.loss_first, 2.99);
}

#[test]
fn an_imported_state_answers_like_the_exporter() {
    let context = common::context();
    let mut a = Scheduler::new(&context, &config()).unwrap();
    for i in 1..=7 {
        a.step(&record(i)).unwrap();
    }
    let state = a.export_state().unwrap();
    let mut b = Scheduler::new(&context, &config()).unwrap();
    b.import_state(&state).unwrap();
    assert_eq!(a.ledger().unwrap(), b.ledger().unwrap());
    for i in 8..=15 {
        assert_eq!(a.step(&record(i)).unwrap(), b.step(&record(i)).unwrap(), "record {}", i);
    }
    let mut corrupt = state.clone();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 0xFF;
    let err = b.import_state(&corrupt).unwrap_err();
    assert!(matches!(err.code(), ErrorCode::DataCorrupted | ErrorCode::InvalidArgument), "{}", err);
}

#[test]
fn bad_telemetry_and_unknown_policies_are_native_errors() {
    let context = common::context();
    let mut scheduler = Scheduler::new(&context, &config()).unwrap();
    let err = scheduler.step(&Telemetry { nodes: 0, ..record(1) }).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().contains("nodes"), "{}", err.message());
    // The refused record changed nothing.
    assert_eq!(scheduler.ledger().unwrap().wall_s, 0.0);

    let config = SchedulerConfig::new().policy("no_such_policy", None).unwrap();
    let err = Scheduler::new(&context, &config).err().unwrap();
    assert_eq!(err.code(), ErrorCode::NotFound);
    assert!(err.message().contains("no_such_policy"), "{}", err.message());
}
