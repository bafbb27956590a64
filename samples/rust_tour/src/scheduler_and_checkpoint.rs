//! Tour steps 6 and 7: the run scheduler's decisions and cost ledger over
//! 30 telemetry records, and a full checkpoint saved through the fs store
//! and restored into zeroed tensors, with a loss scaler's state saved and
//! restored by the engine beside them (no container of the host's own).

use std::fs;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use frugal::{
    sys, CkptEngine, CkptKind, Context, LossScaler, Options, Schedule, Scheduler, SchedulerConfig, Store, TensorMut,
    Telemetry,
};

use crate::check::{ensure, sci, StepResult};
use crate::random::Lcg;
use crate::schedule_and_pack::cosine_options;

const RECORDS: i64 = 30;
const NODES: u32 = 2;
const PRICE_PER_NODE_HOUR: f64 = 1.10;

/// Record `i` (1..30): 30 s of job clock and 10 steps of 2048-token rows
/// per record, a slowly falling loss, 2 spot nodes at $1.10 per node-hour.
fn telemetry_record(i: i64) -> Telemetry {
    Telemetry {
        nodes: NODES,
        step: 10 * i,
        tokens: 10 * i * 2048,
        loss: 4.0 - 0.05 * i as f64,
        wall_time_s: 30.0 * i as f64,
        price_per_node_hour: PRICE_PER_NODE_HOUR,
        resource: sys::FRUGAL_RESOURCE_SPOT,
        ..Telemetry::default()
    }
}

/// Step 6.
pub fn scheduler(context: &Context) -> StepResult {
    let mut cadence = Options::new()?;
    cadence.set_double("heartbeat_interval_s", 60.0)?;
    let config = SchedulerConfig::new()
        .schedule("cosine", Some(cosine_options()?))?
        .policy("checkpoint_cadence", Some(cadence))?;
    let mut scheduler = Scheduler::new(context, &config)?;
    // The same schedule on its own, to check the scheduler's lr against.
    let schedule = Schedule::new(context, "cosine", Some(&cosine_options()?))?;

    let (mut heartbeats, mut last_lr) = (0, 0.0);
    for i in 1..=RECORDS {
        let record = telemetry_record(i);
        let decision = scheduler.step(&record)?;
        let want = schedule.lr(record.step)?;
        ensure(decision.lr == want, || {
            format!("scheduler: record {} (step {}): lr {:e}; the schedule gives {:e}", i, record.step, decision.lr, want)
        })?;
        if decision.checkpoint == sys::FRUGAL_CKPT_HEARTBEAT {
            heartbeats += 1;
        }
        last_lr = decision.lr;
    }
    ensure(heartbeats > 0, || "scheduler: no decision asked for a heartbeat checkpoint".to_string())?;

    let ledger = scheduler.ledger()?;
    // The first record's interval starts at clock 0: 30 records x 30 s.
    let expected = 900.0 * f64::from(NODES) * PRICE_PER_NODE_HOUR / 3600.0;
    let by_use = ledger.productive_dollars + ledger.stall_dollars + ledger.lost_dollars;
    let by_capacity = ledger.spot_dollars + ledger.reserved_dollars;
    ensure((ledger.dollars - by_use).abs() <= 1e-9, || {
        format!("scheduler: ledger dollars {:.12} != productive + stall + lost {:.12}", ledger.dollars, by_use)
    })?;
    ensure((ledger.dollars - by_capacity).abs() <= 1e-9, || {
        format!("scheduler: ledger dollars {:.12} != spot + reserved {:.12}", ledger.dollars, by_capacity)
    })?;
    ensure((ledger.dollars - expected).abs() <= 1e-9, || {
        format!("scheduler: ledger dollars {:.12}; 900 s x 2 nodes x $1.10/h is {:.12}", ledger.dollars, expected)
    })?;
    println!(
        "scheduler: {} records, lr {} at step {}, {} heartbeat(s) asked, ${:.6} paid = productive {:.6} + stall {:.6} + lost {:.6}",
        RECORDS,
        sci(last_lr),
        10 * RECORDS,
        heartbeats,
        ledger.dollars,
        ledger.productive_dollars,
        ledger.stall_dollars,
        ledger.lost_dollars
    );
    Ok(())
}

/// A fresh directory under the system's temporary directory, removed
/// (with everything the store wrote in it) when dropped.
struct TempDir {
    path: PathBuf,
}

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        let path = std::env::temp_dir().join(format!("frugal-rust-tour-{}-{}", std::process::id(), nanos));
        // create_dir (not create_dir_all) fails on an existing directory:
        // the store must start empty.
        fs::create_dir(&path)?;
        Ok(TempDir { path })
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Err(e) = fs::remove_dir_all(&self.path) {
            eprintln!("warning: could not remove the temporary directory {}: {}", self.path.display(), e);
        }
    }
}

const WEIGHTS: usize = 1024;
const METADATA: &[u8] = b"step=100";

/// Step 7.
pub fn checkpoint(context: &Context) -> StepResult {
    let root = TempDir::new()
        .map_err(|e| crate::check::Failure::Mismatch(format!("checkpoint: cannot create a temporary directory: {}", e)))?;
    let mut rng = Lcg::new(17);
    let mut weights: Vec<f32> = (0..WEIGHTS).map(|_| rng.uniform()).collect();
    let mut cursor: Vec<i64> = vec![1, 2, 3, 4];
    let (expected_weights, expected_cursor) = (weights.clone(), cursor.clone());

    let mut options = Options::new()?;
    options.set_string("root", &root.path.to_string_lossy())?;
    let store = Store::new(context, "fs", Some(&options))?;
    let mut engine = CkptEngine::new(&store, None)?;
    engine.register("weights", TensorMut::new(&mut weights, &[WEIGHTS as i64])?, 0)?;
    engine.register("cursor", TensorMut::new(&mut cursor, &[4])?, 0)?;
    // The engine owns the registered scaler; it is reached through it.
    let mut scaler = LossScaler::new(None)?;
    step_scaler(&mut scaler, 3)?;
    let saved_scaler = scaler.status()?;
    engine.register_loss_scaler("loss_scaler", scaler, 0)?;

    // The save returns once the state is snapshotted; the persist runs in
    // the background until wait.
    let saved = engine.save(CkptKind::Full, 100, METADATA, 0)?;
    let persisted = engine.wait()?;
    ensure(persisted.name == saved.name, || {
        format!("checkpoint: saved '{}' but '{}' persisted", saved.name, persisted.name)
    })?;

    // The registered tensors are reached through the engine that borrows them.
    engine.tensor_mut::<f32>("weights")?.iter_mut().for_each(|w| *w = 0.0);
    engine.tensor_mut::<i64>("cursor")?.iter_mut().for_each(|c| *c = 0);
    step_scaler(engine.state_mut::<LossScaler>("loss_scaler")?, 5)?;
    let restored = engine.restore(None, sys::FRUGAL_CKPT_ALL_KINDS)?;
    ensure(restored.info.name == saved.name, || {
        format!("checkpoint: restored '{}'; the save named '{}'", restored.info.name, saved.name)
    })?;
    ensure(restored.info.step == 100, || format!("checkpoint: restored step {}, not 100", restored.info.step))?;
    // Bit-for-bit: compare the bytes, not the float values.
    let weight_bits: Vec<u32> = engine.tensor::<f32>("weights")?.iter().map(|w| w.to_bits()).collect();
    let expected_bits: Vec<u32> = expected_weights.iter().map(|w| w.to_bits()).collect();
    ensure(weight_bits == expected_bits, || "checkpoint: the restored weights differ from the saved ones".to_string())?;
    ensure(engine.tensor::<i64>("cursor")? == expected_cursor.as_slice(), || {
        "checkpoint: the restored cursor differs from {1, 2, 3, 4}".to_string()
    })?;
    ensure(restored.metadata == METADATA, || {
        format!("checkpoint: the restored metadata is {:?}, not \"step=100\"", String::from_utf8_lossy(&restored.metadata))
    })?;
    ensure(restored.not_restored.is_empty(), || {
        format!("checkpoint: the restore left {:?} as they were", restored.not_restored)
    })?;
    let restored_scaler = engine.state_mut::<LossScaler>("loss_scaler")?.status()?;
    ensure(restored_scaler == saved_scaler, || {
        format!("checkpoint: the loss scaler came back as {:?}; saved {:?}", restored_scaler, saved_scaler)
    })?;
    let tensor_bytes = WEIGHTS * 4 + expected_cursor.len() * 8;
    println!(
        "checkpoint: saved and restored {}: step {}, {} tensor bytes back, metadata \"{}\", loss scale {}",
        restored.info.name,
        restored.info.step,
        tensor_bytes,
        String::from_utf8_lossy(&restored.metadata),
        restored_scaler.scale
    );
    // The engine (and its borrows of the tensors) ends before the directory goes.
    drop(engine);
    drop(store);
    Ok(())
}

/// Two overflows, then clean steps: the scaler's scale and counters move.
fn step_scaler(scaler: &mut LossScaler, steps: usize) -> frugal::Result<()> {
    for i in 0..steps {
        scaler.update(i < 2)?;
    }
    Ok(())
}
