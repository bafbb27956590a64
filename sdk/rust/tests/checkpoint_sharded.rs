//! Sharded checkpoints (ABI 2.2) in one process: an engine over a "local"
//! comm (a group of one). A slice, a replicated tensor and a rank-local one
//! round-trip through one manifest of format 3 with world size 1; an engine
//! without a comm restores that checkpoint whole and reports world size 1
//! for its own; the binding refuses a global shape or offsets of the wrong
//! length, and the core an engine without a comm, a box outside the tensor,
//! a replicated tensor that is not whole and slices that leave elements
//! uncovered. After a restore, the metadata of every saving rank (ABI 2.3:
//! rank 0 of 1) is read back.

mod common;

use common::{fs_store, TempDir};
use frugal::{sys, CkptEngine, CkptKind, CkptSlice, Comm, ErrorCode, Options, Store, TensorMut};

/// Options with `prefix`, and `comm` when given.
fn engine_options(prefix: &str, comm: Option<&Comm>) -> Options {
    let mut options = Options::new().unwrap();
    options.set_string("prefix", prefix).unwrap();
    if let Some(comm) = comm {
        options.set_comm("comm", comm).unwrap();
    }
    options
}

/// An engine over a group of one. The comm and the options are dropped
/// right after: the engine keeps sub-groups of its own.
fn sharded_engine<'buf>(store: &Store, prefix: &str) -> CkptEngine<'buf> {
    let comm = Comm::new(&common::context(), "local", None).expect("the local comm");
    assert_eq!((comm.rank(), comm.size()), (0, 1));
    CkptEngine::new(store, Some(&engine_options(prefix, Some(&comm)))).unwrap()
}

fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

#[test]
fn a_slice_a_replicated_and_a_rank_local_tensor_round_trip() {
    let context = common::context();
    let dir = TempDir::new("sharded");
    let store = fs_store(&context, &dir);
    let mut weights: Vec<f32> = (0..24).map(|i| i as f32 / 7.0).collect();
    let mut bias = vec![-1.5f64, -0.5, 0.5, 1.5];
    let mut cursor = vec![7i64, 8, 9];
    let expected = (weights.clone(), bias.clone(), cursor.clone());

    let mut engine = sharded_engine(&store, "job/");
    // This rank holds rows 0..6 of [6, 4]: all of it, in a group of one.
    let weights_view = TensorMut::new(&mut weights, &[6, 4]).unwrap();
    engine.register_slice("model/weights", weights_view, &CkptSlice::new(&[6, 4], &[0, 0]), 0).unwrap();
    engine
        .register_slice("model/bias", TensorMut::new(&mut bias, &[4]).unwrap(), &CkptSlice::replicated(&[4]), 0)
        .unwrap();
    // Registered whole on an engine with a comm: rank-local.
    engine.register("data/cursor", TensorMut::new(&mut cursor, &[3]).unwrap(), 0).unwrap();
    let saved = engine.save(CkptKind::Full, 7, b"sharded", sys::FRUGAL_CKPT_SAVE_WAIT).unwrap();

    engine.tensor_mut::<f32>("model/weights").unwrap().iter_mut().for_each(|v| *v = 0.0);
    engine.tensor_mut::<f64>("model/bias").unwrap().iter_mut().for_each(|v| *v = 0.0);
    engine.tensor_mut::<i64>("data/cursor").unwrap().iter_mut().for_each(|v| *v = 0);
    let restored = engine.restore(None, sys::FRUGAL_CKPT_ALL_KINDS).unwrap();
    assert_eq!(restored.info.name, saved.name);
    assert_eq!((restored.info.step, restored.info.tensor_count, restored.info.world_size), (7, 3, 1));
    assert!(restored.not_restored.is_empty(), "{:?}", restored.not_restored);
    assert_eq!(restored.metadata, b"sharded");
    assert_eq!(engine.restored_metadata(0).unwrap(), b"sharded");
    assert_eq!(engine.restored_metadata(1).unwrap_err().code(), ErrorCode::OutOfRange);
    assert_eq!(bits(engine.tensor::<f32>("model/weights").unwrap()), bits(&expected.0));
    assert_eq!(engine.tensor::<f64>("model/bias").unwrap(), expected.1.as_slice());
    assert_eq!(engine.tensor::<i64>("data/cursor").unwrap(), expected.2.as_slice());

    assert_eq!(engine.latest(sys::FRUGAL_CKPT_ALL_KINDS).unwrap().world_size, 1);
    let listed = engine.list(sys::FRUGAL_CKPT_LIST_VERIFY_SHARDS).unwrap();
    let listed: Vec<(&str, u32)> = listed.iter().map(|i| (i.name.as_str(), i.world_size)).collect();
    assert_eq!(listed, vec![(saved.name.as_str(), 1)]);
    let manifest = engine.inspect_json(&saved.name).unwrap();
    for fact in ["\"format_version\": 3", "\"world_size\": 1", "\"global_shape\""] {
        assert!(manifest.contains(fact), "{} not in the manifest:\n{}", fact, manifest);
    }
    drop(engine);

    // An engine without a comm restores the job's checkpoint whole.
    let mut whole_weights = vec![0f32; 24];
    let mut whole_bias = vec![0f64; 4];
    let mut whole_cursor = vec![0i64; 3];
    let mut whole = CkptEngine::new(&store, Some(&engine_options("job/", None))).unwrap();
    whole.register("model/weights", TensorMut::new(&mut whole_weights, &[6, 4]).unwrap(), 0).unwrap();
    whole.register("model/bias", TensorMut::new(&mut whole_bias, &[4]).unwrap(), 0).unwrap();
    whole.register("data/cursor", TensorMut::new(&mut whole_cursor, &[3]).unwrap(), 0).unwrap();
    let restored = whole.restore(None, sys::FRUGAL_CKPT_ALL_KINDS).unwrap();
    assert_eq!((restored.info.name.as_str(), restored.info.world_size), (saved.name.as_str(), 1));
    assert_eq!(bits(whole.tensor::<f32>("model/weights").unwrap()), bits(&expected.0));
    assert_eq!(whole.tensor::<f64>("model/bias").unwrap(), expected.1.as_slice());
}

#[test]
fn an_engine_without_a_comm_is_one_rank_and_refuses_slices() {
    let context = common::context();
    let dir = TempDir::new("sharded");
    let store = fs_store(&context, &dir);
    let mut state: Vec<i32> = (0..5).collect();
    let mut weights = vec![0f32; 24];

    let mut engine = CkptEngine::new(&store, None).unwrap();
    engine.register("state", TensorMut::new(&mut state, &[5]).unwrap(), 0).unwrap();
    let saved = engine.save(CkptKind::Full, 1, b"", sys::FRUGAL_CKPT_SAVE_WAIT).unwrap();
    assert_eq!(engine.latest(sys::FRUGAL_CKPT_ALL_KINDS).unwrap().world_size, 1);
    engine.tensor_mut::<i32>("state").unwrap().iter_mut().for_each(|v| *v = 0);
    let restored = engine.restore(None, sys::FRUGAL_CKPT_ALL_KINDS).unwrap();
    assert_eq!((restored.info.name.as_str(), restored.info.world_size), (saved.name.as_str(), 1));
    assert_eq!(engine.tensor::<i32>("state").unwrap(), &[0, 1, 2, 3, 4]);

    let view = TensorMut::new(&mut weights, &[6, 4]).unwrap();
    let refused = engine.register_slice("w", view, &CkptSlice::new(&[6, 4], &[]), 0);
    common::expect_error(refused, ErrorCode::FailedPrecondition, &["'w'", "without a 'comm' option"]);
    common::expect_error(engine.tensor::<f32>("w"), ErrorCode::NotFound, &["'w'"]);
}

#[test]
fn the_binding_checks_lengths_and_the_core_the_rest() {
    let context = common::context();
    let dir = TempDir::new("sharded");
    let store = fs_store(&context, &dir);
    // One buffer per attempt: a registration borrows its view for the engine's lifetime.
    let mut buffers = vec![vec![0f32; 24]; 4];
    let mut half = vec![0f32; 12];
    let mut buffers = buffers.iter_mut();
    let mut next_view = || TensorMut::new(buffers.next().unwrap(), &[6, 4]).unwrap();

    let mut engine = sharded_engine(&store, "job/");
    let refused = engine.register_slice("w", next_view(), &CkptSlice::new(&[24], &[]), 0);
    common::expect_error(
        refused,
        ErrorCode::InvalidArgument,
        &["'w'", "global_shape has 1 values but the tensor has 2 dimensions"],
    );
    let refused = engine.register_slice("w", next_view(), &CkptSlice::new(&[6, 4], &[0, 0, 0]), 0);
    common::expect_error(refused, ErrorCode::InvalidArgument, &["'w'", "offsets has 3 values but the tensor has 2 dimensions"]);
    let refused = engine.register_slice("w", next_view(), &CkptSlice::new(&[6, 4], &[1, 0]), 0);
    common::expect_error(refused, ErrorCode::OutOfRange, &["'w'", "past the tensor's extent 6"]);
    let refused = engine.register_slice("w", next_view(), &CkptSlice::replicated(&[12, 4]), 0);
    common::expect_error(refused, ErrorCode::InvalidArgument, &["'w'", "replicated"]);

    // The refusals registered nothing; rows 0..3 of 6 leave half the
    // tensor uncovered, which the save finds and commits on no rank.
    engine.register_slice("w", TensorMut::new(&mut half, &[3, 4]).unwrap(), &CkptSlice::new(&[6, 4], &[]), 0).unwrap();
    let refused = engine.save(CkptKind::Full, 1, b"", sys::FRUGAL_CKPT_SAVE_WAIT);
    common::expect_error(refused, ErrorCode::FailedPrecondition, &["covers 12 of the 24 elements of tensor 'w'"]);
    assert!(engine.list(0).unwrap().is_empty());
}
