//! Checkpoints through the fs store: every byte and the metadata come
//! back, restore by name, a corrupt shard is refused without touching the
//! tensors, an emergency heartbeat restores the same bytes, the restored
//! metadata of every saving rank (ABI 2.3; rank 0 alone here) comes back
//! whole after a restore only, store keys are checked by the core's rules,
//! and missing checkpoints or tensors are native errors. (The preemption
//! agreement is in tests/checkpoint_preemption.rs: notices are process-wide.)

mod common;

use common::{fs_store, TempDir};
use frugal::{sys, CkptEngine, CkptKind, ErrorCode, Store, TensorMut};

#[test]
fn save_then_restore_brings_back_every_byte_and_the_metadata() {
    let context = common::context();
    let dir = TempDir::new("ckpt");
    let store = fs_store(&context, &dir);
    let mut weights: Vec<f32> = (0..3000).map(|i| (i as f32).sin()).collect();
    let mut step_ids = vec![7i64, -1, i64::MAX];
    let mut flags = vec![1u8, 0, 1, 1];
    let expected = (weights.clone(), step_ids.clone(), flags.clone());

    let mut engine = CkptEngine::new(&store, None).unwrap();
    drop(store); // the engine keeps the backend open
    engine.register("model/weights", TensorMut::new(&mut weights, &[30, 100]).unwrap(), 0).unwrap();
    engine.register("data/ids", TensorMut::new(&mut step_ids, &[3]).unwrap(), 0).unwrap();
    engine
        .register("heartbeat/flags", TensorMut::new(&mut flags, &[4]).unwrap(), sys::FRUGAL_CKPT_HEARTBEAT as u32)
        .unwrap();

    let first = engine.save(CkptKind::Full, 10, b"first", sys::FRUGAL_CKPT_SAVE_WAIT).unwrap();
    assert!(!first.skipped);
    // A full checkpoint leaves the heartbeat-only flags out.
    assert_eq!(first.bytes, 3000 * 4 + 3 * 8 + 5);
    engine.tensor_mut::<f32>("model/weights").unwrap()[0] = 42.0;
    let second = engine.save(CkptKind::Full, 20, b"second", 0).unwrap();
    assert_eq!(engine.wait().unwrap().name, second.name);
    assert_ne!(first.name, second.name);

    let listed = engine.list(sys::FRUGAL_CKPT_LIST_VERIFY_SHARDS).unwrap();
    let names: Vec<&str> = listed.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, vec![second.name.as_str(), first.name.as_str()], "newest first");
    assert!(listed.iter().all(|i| i.status == sys::FRUGAL_CKPT_VALID && i.tensor_count == 2));
    assert_eq!(engine.latest(sys::FRUGAL_CKPT_ALL_KINDS).unwrap().step, 20);
    assert!(engine.inspect_json(&first.name).unwrap().contains("model/weights"));

    // Zero everything, restore the older one by name.
    engine.tensor_mut::<f32>("model/weights").unwrap().iter_mut().for_each(|w| *w = 0.0);
    engine.tensor_mut::<i64>("data/ids").unwrap().iter_mut().for_each(|v| *v = 0);
    engine.tensor_mut::<u8>("heartbeat/flags").unwrap().iter_mut().for_each(|v| *v = 0);
    let restored = engine.restore(Some(&first.name), sys::FRUGAL_CKPT_ALL_KINDS).unwrap();
    assert_eq!(restored.info.name, first.name);
    assert_eq!((restored.info.step, restored.info.kind), (10, sys::FRUGAL_CKPT_FULL));
    assert_eq!(restored.metadata, b"first");
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    assert_eq!(bits(engine.tensor::<f32>("model/weights").unwrap()), bits(&expected.0));
    assert_eq!(engine.tensor::<i64>("data/ids").unwrap(), expected.1.as_slice());
    // Registered tensors absent from the checkpoint are left untouched.
    assert_eq!(engine.tensor::<u8>("heartbeat/flags").unwrap(), &[0, 0, 0, 0]);
    // A heartbeat holds the flags too (the others are registered for all kinds).
    engine.tensor_mut::<u8>("heartbeat/flags").unwrap().copy_from_slice(&expected.2);
    let beat = engine.save(CkptKind::Heartbeat, 11, b"", sys::FRUGAL_CKPT_SAVE_WAIT).unwrap();
    assert_eq!(beat.bytes, 3000 * 4 + 3 * 8 + 4);
    engine.tensor_mut::<u8>("heartbeat/flags").unwrap().iter_mut().for_each(|v| *v = 9);
    let restored = engine.restore(None, sys::FRUGAL_CKPT_HEARTBEAT as u32).unwrap();
    assert_eq!((restored.info.name.as_str(), restored.metadata.len()), (beat.name.as_str(), 0));
    assert_eq!(engine.tensor::<u8>("heartbeat/flags").unwrap(), expected.2.as_slice());

    // The newest full one: saved with weights[0] = 42.
    let restored = engine.restore(None, sys::FRUGAL_CKPT_FULL as u32).unwrap();
    assert_eq!((restored.info.name.as_str(), restored.metadata.as_slice()), (second.name.as_str(), &b"second"[..]));
    assert_eq!(engine.tensor::<f32>("model/weights").unwrap()[0], 42.0);

    // Unregistering hands the view back; its name is then unknown.
    let view = engine.unregister("data/ids").unwrap();
    assert_eq!(view.shape(), &[3]);
    assert_eq!(engine.unregister("data/ids").unwrap_err().code(), ErrorCode::NotFound);
    drop(view);
    drop(engine);
    assert_eq!(weights[0], 42.0, "the engine wrote into the caller's slice");
}

#[test]
fn a_heartbeat_restore_takes_full_only_state_from_the_full_before_it() {
    let context = common::context();
    let dir = TempDir::new("ckpt-full-only");
    let store = fs_store(&context, &dir);
    let mut weights = vec![0f32; 8];
    let mut moments = vec![0i64; 4];
    let mut engine = CkptEngine::new(&store, None).unwrap();
    engine.register("weights", TensorMut::new(&mut weights, &[8]).unwrap(), 0).unwrap();
    engine.register("optim/moments", TensorMut::new(&mut moments, &[4]).unwrap(), sys::FRUGAL_CKPT_FULL as u32).unwrap();
    let early = engine.save(CkptKind::Heartbeat, 1, b"", sys::FRUGAL_CKPT_SAVE_WAIT).unwrap(); // no full before it
    engine.tensor_mut::<i64>("optim/moments").unwrap().copy_from_slice(&[1, 2, 3, 4]);
    let full = engine.save(CkptKind::Full, 2, b"", sys::FRUGAL_CKPT_SAVE_WAIT).unwrap();
    engine.tensor_mut::<i64>("optim/moments").unwrap().copy_from_slice(&[5, 6, 7, 8]); // heartbeats leave it out
    let beat = engine.save(CkptKind::Heartbeat, 3, b"", sys::FRUGAL_CKPT_SAVE_WAIT).unwrap();

    engine.tensor_mut::<i64>("optim/moments").unwrap().fill(0);
    let restored = engine.restore(None, sys::FRUGAL_CKPT_ALL_KINDS).unwrap();
    assert_eq!(restored.info.name, beat.name);
    assert_eq!(restored.full_source, full.name);
    assert!(restored.not_restored.is_empty());
    assert_eq!(engine.tensor::<i64>("optim/moments").unwrap(), &[1, 2, 3, 4]);

    engine.tensor_mut::<i64>("optim/moments").unwrap().fill(0);
    let restored = engine.restore(Some(&early.name), 0).unwrap();
    assert_eq!(restored.full_source, "");
    assert_eq!(restored.not_restored, vec!["optim/moments".to_string()]);
    assert_eq!(engine.tensor::<i64>("optim/moments").unwrap(), &[0, 0, 0, 0]);
}

#[test]
fn a_corrupt_shard_is_refused_and_leaves_the_tensors_alone() {
    let context = common::context();
    let dir = TempDir::new("corrupt");
    let store = fs_store(&context, &dir);
    let mut state = vec![5i32; 256];
    let mut engine = CkptEngine::new(&store, None).unwrap();
    engine.register("state", TensorMut::new(&mut state, &[256]).unwrap(), 0).unwrap();
    let saved = engine.save(CkptKind::Heartbeat, 3, b"", sys::FRUGAL_CKPT_SAVE_WAIT).unwrap();

    // Flip one byte of every object of the checkpoint but its manifest.
    let keys = store.list(&saved.name).unwrap();
    let shards: Vec<&(String, u64)> = keys.iter().filter(|(k, _)| !k.contains("manifest")).collect();
    assert!(!shards.is_empty(), "keys: {:?}", keys);
    for (key, size) in shards {
        let mut bytes = store.read(key).unwrap();
        assert_eq!(bytes.len() as u64, *size);
        bytes[0] ^= 0x5A;
        store.put(key, &bytes).unwrap();
    }
    engine.tensor_mut::<i32>("state").unwrap()[0] = -9;
    let err = engine.restore(Some(&saved.name), sys::FRUGAL_CKPT_ALL_KINDS).unwrap_err();
    assert_eq!(err.code(), ErrorCode::DataCorrupted, "{}", err);
    assert!(!err.message().is_empty());
    assert_eq!(engine.tensor::<i32>("state").unwrap()[0], -9, "nothing restored from a corrupt checkpoint");
    assert_eq!(engine.verify(&saved.name).unwrap().status, sys::FRUGAL_CKPT_CORRUPT);
    // It was the only checkpoint: none verifies.
    let err = engine.latest(sys::FRUGAL_CKPT_ALL_KINDS).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound, "{}", err);
}

#[test]
fn missing_checkpoints_and_bad_stores_are_native_errors() {
    let context = common::context();
    let dir = TempDir::new("missing");
    let store = fs_store(&context, &dir);
    let mut engine = CkptEngine::new(&store, None).unwrap();
    assert_eq!(engine.latest(sys::FRUGAL_CKPT_ALL_KINDS).unwrap_err().code(), ErrorCode::NotFound);
    let err = engine.restore(None, sys::FRUGAL_CKPT_ALL_KINDS).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound, "{}", err);
    assert_eq!(engine.tensor::<f32>("nothing").unwrap_err().code(), ErrorCode::NotFound);
    assert_eq!(store.size("no/such/key").unwrap_err().code(), ErrorCode::NotFound);

    // Plain store use: put, size, read, list in key order, remove.
    store.put("b/two", b"22").unwrap();
    store.put("a/one", b"1").unwrap();
    assert_eq!(store.list("").unwrap(), vec![("a/one".to_string(), 1), ("b/two".to_string(), 2)]);
    assert_eq!(store.read("b/two").unwrap(), b"22");
    store.remove("a/one").unwrap();
    assert_eq!(store.list("a/").unwrap(), vec![]);
    assert_eq!(store.put("../escape", b"x").unwrap_err().code(), ErrorCode::InvalidArgument);

    // "fs" needs a root.
    let err = Store::new(&context, "fs", None).err().unwrap();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().contains("root"), "{}", err.message());
}

#[test]
fn an_emergency_save_commits_and_restores_the_same_bytes() {
    let context = common::context();
    let dir = TempDir::new("ckpt-emergency");
    let store = fs_store(&context, &dir);
    let mut weights: Vec<f32> = (0..1000).map(|i| (i as f32 * 0.37).cos()).collect();
    let mut tokens = vec![11i64, 22, 33];
    let expected = (weights.clone(), tokens.clone());

    let mut engine = CkptEngine::new(&store, None).unwrap();
    engine.register("model/weights", TensorMut::new(&mut weights, &[10, 100]).unwrap(), 0).unwrap();
    engine.register("data/tokens", TensorMut::new(&mut tokens, &[3]).unwrap(), 0).unwrap();
    // A regular save in flight first: the emergency save waits for it
    // within the same deadline.
    engine.save(CkptKind::Full, 1, b"regular", 0).unwrap();

    let saved = engine.emergency_save(7, b"preempted", 30.0).unwrap();
    assert!(saved.committed, "a local save commits well within 30 s");
    assert!(!saved.name.is_empty());
    assert!(saved.seconds >= 0.0 && saved.seconds < 30.0, "{}", saved.seconds);

    let info = engine.verify(&saved.name).unwrap();
    assert_eq!(info.status, sys::FRUGAL_CKPT_VALID, "{}", info.reason);
    assert!(info.emergency);
    assert_eq!((info.step, info.kind), (7, sys::FRUGAL_CKPT_HEARTBEAT));
    let latest = engine.latest(sys::FRUGAL_CKPT_HEARTBEAT as u32).unwrap();
    assert_eq!(latest.name, saved.name);

    engine.tensor_mut::<f32>("model/weights").unwrap().iter_mut().for_each(|w| *w = -1.0);
    engine.tensor_mut::<i64>("data/tokens").unwrap().copy_from_slice(&[0, 0, 0]);
    let restored = engine.restore(None, sys::FRUGAL_CKPT_HEARTBEAT as u32).unwrap();
    assert_eq!(restored.info.name, saved.name);
    assert!(restored.info.emergency);
    assert_eq!(restored.metadata, b"preempted");
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    assert_eq!(bits(engine.tensor::<f32>("model/weights").unwrap()), bits(&expected.0));
    assert_eq!(engine.tensor::<i64>("data/tokens").unwrap(), expected.1.as_slice());

    let err = engine.emergency_save(8, b"", 0.0).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{}", err);
    assert!(err.message().contains("deadline_seconds"), "{}", err.message());
}

#[test]
fn restored_metadata_is_rank_0s_after_a_restore_only() {
    let context = common::context();
    let dir = TempDir::new("ckpt-restored-metadata");
    let store = fs_store(&context, &dir);
    let mut state = vec![1i32, 2, 3, 4];
    let mut engine = CkptEngine::new(&store, None).unwrap();
    engine.register("state", TensorMut::new(&mut state, &[4]).unwrap(), 0).unwrap();
    let err = engine.restored_metadata(0).unwrap_err();
    assert_eq!(err.code(), ErrorCode::FailedPrecondition, "{}", err);
    engine.save(CkptKind::Full, 1, b"cursor=17", sys::FRUGAL_CKPT_SAVE_WAIT).unwrap();
    let err = engine.restored_metadata(0).unwrap_err();
    assert_eq!(err.code(), ErrorCode::FailedPrecondition, "a save is not a restore: {}", err);

    let restored = engine.restore(None, sys::FRUGAL_CKPT_ALL_KINDS).unwrap();
    assert_eq!((restored.info.world_size, restored.metadata.as_slice()), (1, &b"cursor=17"[..]));
    assert_eq!(engine.restored_metadata(0).unwrap(), b"cursor=17");
    assert_eq!(engine.restored_metadata(0).unwrap(), b"cursor=17", "it stays until the next restore");
    // One rank wrote it.
    let err = engine.restored_metadata(1).unwrap_err();
    assert_eq!(err.code(), ErrorCode::OutOfRange, "{}", err);
    assert_eq!(engine.restored_metadata(u32::MAX).unwrap_err().code(), ErrorCode::OutOfRange);

    // The next restore replaces it; empty metadata comes back empty.
    engine.save(CkptKind::Full, 2, b"", sys::FRUGAL_CKPT_SAVE_WAIT).unwrap();
    engine.restore(None, sys::FRUGAL_CKPT_ALL_KINDS).unwrap();
    assert_eq!(engine.restored_metadata(0).unwrap(), b"");
}

#[test]
fn large_restored_metadata_comes_back_whole() {
    let context = common::context();
    let dir = TempDir::new("ckpt-restored-metadata-large");
    let store = fs_store(&context, &dir);
    // 100 KiB: larger than the first buffer restore and restored_metadata offer.
    let blob: Vec<u8> = (0..100 * 1024).map(|i| (i % 251) as u8).collect();
    let mut state = vec![0f64; 16];
    let mut engine = CkptEngine::new(&store, None).unwrap();
    engine.register("state", TensorMut::new(&mut state, &[16]).unwrap(), 0).unwrap();
    engine.save(CkptKind::Full, 1, &blob, sys::FRUGAL_CKPT_SAVE_WAIT).unwrap();
    let restored = engine.restore(None, sys::FRUGAL_CKPT_ALL_KINDS).unwrap();
    assert_eq!(restored.metadata, blob);
    assert_eq!(engine.restored_metadata(0).unwrap(), blob);
}

#[test]
fn store_keys_follow_the_core_rules() {
    for good in ["a", "ckpt/00000001/manifest", "x.y-z_0/1"] {
        Store::check_key(good).unwrap_or_else(|e| panic!("{:?} refused: {}", good, e));
    }
    let too_long = "a".repeat(sys::FRUGAL_STORE_KEY_MAX as usize + 1);
    for (bad, mention) in [
        ("../etc", ".."),
        ("ok/.hidden", ".hidden"),
        ("a//b", ""),
        ("", ""),
        ("sp ace", "sp ace"),
        (too_long.as_str(), ""),
    ] {
        let err = Store::check_key(bad).expect_err(bad);
        assert_eq!(err.code(), ErrorCode::InvalidArgument, "{:?}: {}", bad, err);
        assert!(err.message().contains(mention), "{:?}: {}", bad, err.message());
    }
    // A NUL never reaches the core.
    let err = Store::check_key("a\0b").unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().contains("NUL"), "{}", err.message());
}
