//! Host state in checkpoints: a scheduler, a loss scaler and a Rust
//! `HostState` owned by the engine come back exactly after a restore, a
//! state the checkpoint lacks is reported, an `Err` or a panic inside a
//! state's function fails the save or restore with an error naming it, and
//! unregister_state hands the object back.

mod common;

use common::{fs_store, TempDir};
use frugal::{sys, CkptEngine, CkptKind, Context, ErrorCode, HostState, LossScaler, Options, Scheduler,
             SchedulerConfig, Telemetry, TensorMut};

fn scheduler(context: &Context) -> Scheduler {
    let mut cosine = Options::new().unwrap();
    cosine.set_double("lr", 1e-3).unwrap().set_int("warmup_steps", 10).unwrap().set_int("total_steps", 200).unwrap();
    let mut cadence = Options::new().unwrap();
    cadence.set_double("heartbeat_interval_s", 100.0).unwrap();
    let config = SchedulerConfig::new()
        .schedule("cosine", Some(cosine))
        .unwrap()
        .policy("checkpoint_cadence", Some(cadence))
        .unwrap();
    Scheduler::new(context, &config).unwrap()
}

fn scaler() -> LossScaler {
    let mut options = Options::new().unwrap();
    options.set_double("init_scale", 1024.0).unwrap().set_int("growth_interval", 3).unwrap();
    LossScaler::new(Some(&options)).unwrap()
}

fn record(i: i64) -> Telemetry {
    Telemetry {
        nodes: 2,
        step: 5 * i,
        tokens: 5 * i * 1024,
        loss: 3.0 - 0.01 * i as f64,
        wall_time_s: 20.0 * i as f64,
        price_per_node_hour: 2.0,
        resource: sys::FRUGAL_RESOURCE_SPOT,
        ..Telemetry::default()
    }
}

/// Where the data loader is: Rust host state as 16 bytes.
#[derive(Debug, Default, PartialEq)]
struct Cursor {
    epoch: u64,
    offset: u64,
}

impl HostState for Cursor {
    fn export_state(&mut self) -> frugal::Result<Vec<u8>> {
        Ok([self.epoch.to_le_bytes(), self.offset.to_le_bytes()].concat())
    }
    fn import_state(&mut self, data: &[u8]) -> frugal::Result<()> {
        if data.len() != 16 {
            return Err(frugal::Error::new(ErrorCode::DataCorrupted, &format!("cursor: {} bytes, expected 16", data.len())));
        }
        self.epoch = u64::from_le_bytes(data[..8].try_into().unwrap());
        self.offset = u64::from_le_bytes(data[8..].try_into().unwrap());
        Ok(())
    }
}

#[test]
fn scheduler_scaler_and_host_state_come_back_exactly() {
    let context = common::context();
    let dir = TempDir::new("ckpt-state");
    let store = fs_store(&context, &dir);
    let mut weights = vec![0.5f32; 64];
    let mut engine = CkptEngine::new(&store, None).unwrap();
    engine.register("weights", TensorMut::new(&mut weights, &[64]).unwrap(), 0).unwrap();
    engine.register_scheduler("scheduler", scheduler(&context), 0).unwrap();
    engine.register_loss_scaler("scaler", scaler(), 0).unwrap();
    engine.register_state("cursor", Cursor::default(), 0).unwrap();
    for i in 1..=7 {
        engine.state_mut::<Scheduler>("scheduler").unwrap().step(&record(i)).unwrap();
        engine.state_mut::<LossScaler>("scaler").unwrap().update(i % 4 == 2).unwrap();
    }
    *engine.state_mut::<Cursor>("cursor").unwrap() = Cursor { epoch: 2, offset: 4096 };
    let saved_scaler = engine.state_mut::<LossScaler>("scaler").unwrap().status().unwrap();
    engine.save(CkptKind::Full, 7, b"", sys::FRUGAL_CKPT_SAVE_WAIT).unwrap();
    // The reference is the scheduler as the save left it (the save counted as a checkpoint).
    let mut reference = scheduler(&context);
    reference.import_state(&engine.state_mut::<Scheduler>("scheduler").unwrap().export_state().unwrap()).unwrap();

    for i in 8..=15 {
        engine.state_mut::<Scheduler>("scheduler").unwrap().step(&record(i)).unwrap();
        engine.state_mut::<LossScaler>("scaler").unwrap().update(true).unwrap();
    }
    *engine.state_mut::<Cursor>("cursor").unwrap() = Cursor { epoch: 9, offset: 1 };
    let restored = engine.restore(None, sys::FRUGAL_CKPT_ALL_KINDS).unwrap();
    assert!(restored.not_restored.is_empty(), "{:?}", restored.not_restored);
    // The scheduler, the scaler and the cursor, beside one tensor.
    assert_eq!((restored.info.tensor_count, restored.info.state_count), (1, 3));
    assert_eq!(engine.list(0).unwrap()[0].state_count, 3);
    assert_eq!(engine.state_mut::<LossScaler>("scaler").unwrap().status().unwrap(), saved_scaler);
    assert_eq!(*engine.state_mut::<Cursor>("cursor").unwrap(), Cursor { epoch: 2, offset: 4096 });
    let mut resumed = engine.unregister_state::<Scheduler>("scheduler").unwrap();
    assert_eq!(resumed.ledger().unwrap(), reference.ledger().unwrap());
    for i in 8..=40 {
        assert_eq!(resumed.step(&record(i)).unwrap(), reference.step(&record(i)).unwrap(), "record {}", i);
    }
    assert_eq!(resumed.ledger().unwrap(), reference.ledger().unwrap());
}

#[test]
fn a_state_the_checkpoint_lacks_is_reported_and_left_as_it_was() {
    let context = common::context();
    let dir = TempDir::new("ckpt-state-missing");
    let store = fs_store(&context, &dir);
    {
        let mut engine = CkptEngine::new(&store, None).unwrap();
        engine.register_loss_scaler("scaler", scaler(), 0).unwrap();
        engine.save(CkptKind::Full, 1, b"", sys::FRUGAL_CKPT_SAVE_WAIT).unwrap();
    }
    let mut engine = CkptEngine::new(&store, None).unwrap();
    engine.register_loss_scaler("scaler", scaler(), 0).unwrap();
    engine.register_state("cursor", Cursor { epoch: 5, offset: 6 }, 0).unwrap();
    let restored = engine.restore(None, sys::FRUGAL_CKPT_ALL_KINDS).unwrap();
    assert_eq!(restored.not_restored, vec!["cursor".to_string()]);
    assert_eq!(engine.unregister_state::<Cursor>("cursor").unwrap(), Cursor { epoch: 5, offset: 6 });
    let gone = engine.state_mut::<Cursor>("cursor").unwrap_err();
    assert_eq!(gone.code(), ErrorCode::NotFound);
}

struct Faulty {
    panic_on_export: bool,
}

impl HostState for Faulty {
    fn export_state(&mut self) -> frugal::Result<Vec<u8>> {
        if self.panic_on_export {
            panic!("the cursor is gone");
        }
        Ok(vec![1, 2, 3])
    }
    fn import_state(&mut self, _data: &[u8]) -> frugal::Result<()> {
        Err(frugal::Error::new(ErrorCode::DataCorrupted, "cursor blob is garbage"))
    }
}

#[test]
fn errors_and_panics_inside_a_state_fail_the_call_naming_it() {
    let context = common::context();
    let dir = TempDir::new("ckpt-state-faulty");
    let store = fs_store(&context, &dir);
    let mut engine = CkptEngine::new(&store, None).unwrap();
    engine.register_state("faulty", Faulty { panic_on_export: true }, 0).unwrap();
    let error = engine.save(CkptKind::Full, 1, b"", sys::FRUGAL_CKPT_SAVE_WAIT).unwrap_err();
    assert_eq!(error.code(), ErrorCode::Internal);
    assert!(error.message().contains("state 'faulty': export_state panicked: the cursor is gone"), "{}", error);
    assert!(engine.list(0).unwrap().is_empty(), "the failed save persisted nothing");

    engine.state_mut::<Faulty>("faulty").unwrap().panic_on_export = false;
    engine.save(CkptKind::Full, 2, b"", sys::FRUGAL_CKPT_SAVE_WAIT).unwrap();
    let error = engine.restore(None, sys::FRUGAL_CKPT_ALL_KINDS).unwrap_err();
    assert_eq!(error.code(), ErrorCode::DataCorrupted);
    assert!(error.message().contains("cursor blob is garbage"), "{}", error);

    // The wrong type is refused and the state stays registered.
    let wrong = engine.unregister_state::<Cursor>("faulty").unwrap_err();
    assert_eq!(wrong.code(), ErrorCode::InvalidArgument);
    assert!(wrong.message().contains("is not a"), "{}", wrong);
    let tensor = engine.unregister("faulty").unwrap_err();
    assert_eq!(tensor.code(), ErrorCode::InvalidArgument);
    let duplicate = engine.register_loss_scaler("faulty", scaler(), 0).unwrap_err();
    assert_eq!(duplicate.code(), ErrorCode::AlreadyExists);
    assert!(engine.unregister_state::<Faulty>("faulty").is_ok());
}

#[test]
fn the_loss_scaler_blob_round_trips_and_is_checked() {
    let mut first = scaler();
    for found_inf in [false, true, false, false] {
        first.update(found_inf).unwrap();
    }
    let blob = first.export_state().unwrap();
    assert_eq!(&blob[..4], b"FRLS");
    let mut second = scaler();
    second.import_state(&blob).unwrap();
    assert_eq!(second.status().unwrap(), first.status().unwrap());
    let before = second.status().unwrap();
    let error = second.import_state(&blob[..blob.len() - 1]).unwrap_err();
    assert_eq!(error.code(), ErrorCode::DataCorrupted);
    assert_eq!(second.status().unwrap(), before);
    assert_eq!(sys::FRUGAL_CKPT_STATE_MAX_SIZE, 256 << 20);
}
