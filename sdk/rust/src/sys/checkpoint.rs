//! frugal/checkpoint.h: the checkpoint engine (heartbeat and full
//! checkpoints persisted in the background through a store) and the
//! preemption helpers.
//!
//! An engine's functions may be called from any thread (serialised inside);
//! registered tensor memory must not be written while save or restore runs.

use std::os::raw::{c_char, c_void};

use super::loss_scaler::frugal_loss_scaler;
use super::quantizer::frugal_quantizer;
use super::router::frugal_router;
use super::scheduler::frugal_scheduler;
use super::store::frugal_store;
use super::tensor::frugal_tensor;
use super::types::{frugal_error, frugal_options};

/// frugal_ckpt_kind_values, shared with the scheduler's decisions; HEARTBEAT
/// and FULL are also bit masks, NONE is a decision's "no checkpoint now".
pub const FRUGAL_CKPT_NONE: i32 = 0;
pub const FRUGAL_CKPT_HEARTBEAT: i32 = 1;
pub const FRUGAL_CKPT_FULL: i32 = 2;
/// Mask of every kind.
pub const FRUGAL_CKPT_ALL_KINDS: u32 = 3;

/// frugal_ckpt_status_values.
pub const FRUGAL_CKPT_VALID: i32 = 0;
pub const FRUGAL_CKPT_INCOMPLETE: i32 = 1;
pub const FRUGAL_CKPT_CORRUPT: i32 = 2;
pub const FRUGAL_CKPT_NEWER_FORMAT: i32 = 3;
pub const FRUGAL_CKPT_UNREADABLE: i32 = 4;

/// Save flags.
pub const FRUGAL_CKPT_SAVE_WAIT: u32 = 1 << 0;
pub const FRUGAL_CKPT_SAVE_SKIP_IF_BUSY: u32 = 1 << 1;
/// List flag: verify shard sizes and checksums too.
pub const FRUGAL_CKPT_LIST_VERIFY_SHARDS: u32 = 1 << 0;

/// Longest checkpoint name including the NUL.
pub const FRUGAL_CKPT_NAME_CAPACITY: usize = 64;
/// Capacity of frugal_ckpt_info.reason including the NUL.
pub const FRUGAL_CKPT_REASON_CAPACITY: usize = 256;
/// Longest registered tensor name including the NUL.
pub const FRUGAL_CKPT_TENSOR_NAME_CAPACITY: usize = 256;

/// What to save; caller-owned, read during the call (metadata copied).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_ckpt_save_args {
    pub struct_size: usize,
    pub kind: i32,
    pub flags: u32,
    pub step: u64,
    pub metadata: *const c_void,
    pub metadata_size: usize,
}

/// Outcome of a save; caller-allocated with struct_size set.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_ckpt_save_result {
    pub struct_size: usize,
    pub name: [c_char; FRUGAL_CKPT_NAME_CAPACITY],
    pub skipped: i32,
    pub reserved: i32,
    pub bytes: usize,
    pub wait_seconds: f64,
    pub snapshot_seconds: f64,
}

/// Outcome of the last persist; caller-allocated with struct_size set.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_ckpt_persist_result {
    pub struct_size: usize,
    pub name: [c_char; FRUGAL_CKPT_NAME_CAPACITY],
    pub bytes: u64,
    pub persist_seconds: f64,
}

/// One checkpoint found in the store; caller-allocated with struct_size set.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_ckpt_info {
    pub struct_size: usize,
    pub name: [c_char; FRUGAL_CKPT_NAME_CAPACITY],
    pub kind: i32,
    pub status: i32,
    pub step: u64,
    pub sequence: u64,
    pub created_unix_ns: i64,
    pub bytes: u64,
    pub tensor_count: u32,
    /// Registered states in the checkpoint.
    pub state_count: u32,
    pub emergency: i32,
    pub reason: [c_char; FRUGAL_CKPT_REASON_CAPACITY],
    /// Written by frugal_ckpt_restore only: the full checkpoint the
    /// full-only tensors came from, "" if none.
    pub full_source: [c_char; FRUGAL_CKPT_NAME_CAPACITY],
    /// Registered tensors and states the restore did not write.
    pub not_restored_count: u32,
    /// ABI 2.3, written by every call that fills an info: ranks of the job
    /// that wrote the checkpoint (1 for one process), 0 when no manifest
    /// was read.
    pub world_size: u32,
    /// Always 0.
    pub reserved: u32,
}

/// The box of a global tensor one rank holds (ABI 2.2), for
/// `frugal_ckpt_register_slice`; caller-owned, copied during the call
/// (both arrays included).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_ckpt_slice {
    pub struct_size: usize,
    /// Must equal the view's ndim.
    pub ndim: i32,
    /// Nonzero: every rank holds the whole tensor (saved by rank 0 only).
    pub replicated: i32,
    /// `ndim` extents of the whole tensor; not NULL when ndim > 0.
    pub global_shape: *const i64,
    /// `ndim` offsets of this rank's box; NULL = all zero.
    pub offsets: *const i64,
}

/// Smallest `struct_size` `frugal_ckpt_register_slice` accepts (the
/// header's formula: every field through `offsets`).
pub const FRUGAL_CKPT_SLICE_MIN_SIZE: usize =
    std::mem::size_of::<usize>() + 2 * std::mem::size_of::<i32>() + 2 * std::mem::size_of::<*const i64>();

/// Outcome of an emergency save; caller-allocated with struct_size set.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_ckpt_emergency_result {
    pub struct_size: usize,
    pub name: [c_char; FRUGAL_CKPT_NAME_CAPACITY],
    pub committed: i32,
    pub reserved: i32,
    pub seconds: f64,
}

/// Receives one checkpoint during a listing (`info` valid during the call).
/// Return nonzero to stop.
pub type frugal_ckpt_list_fn = Option<unsafe extern "C" fn(user_data: *mut c_void, info: *const frugal_ckpt_info) -> i32>;

/// The most bytes one registered state may export (256 MiB).
pub const FRUGAL_CKPT_STATE_MAX_SIZE: usize = 256 << 20;

/// `frugal_error* (*export_state)(void* user_data, void* buffer, size_t capacity, size_t* size)`.
pub type frugal_ckpt_export_state_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, buffer: *mut c_void, capacity: usize, size: *mut usize) -> *mut frugal_error>;
/// `frugal_error* (*import_state)(void* user_data, const void* data, size_t size)`.
pub type frugal_ckpt_import_state_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, data: *const c_void, size: usize) -> *mut frugal_error>;

/// How the engine saves and restores one piece of host state.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_ckpt_state_fns {
    pub struct_size: usize,
    pub user_data: *mut c_void,
    pub export_state: frugal_ckpt_export_state_fn,
    pub import_state: frugal_ckpt_import_state_fn,
}

/// Opaque checkpoint engine bound to one store.
#[repr(C)]
pub struct frugal_ckpt_engine {
    _opaque: [u8; 0],
}

extern "C" {
    /// Keeps `store` open; `options` may be NULL; `*out` owned by the caller.
    pub fn frugal_ckpt_engine_create(
        store: *mut frugal_store,
        options: *const frugal_options,
        out: *mut *mut frugal_ckpt_engine,
    ) -> *mut frugal_error;
    /// Waits for the in-flight persist, then destroys. NULL allowed.
    pub fn frugal_ckpt_engine_destroy(engine: *mut frugal_ckpt_engine);

    /// Copies the view; BORROWS its memory until unregistered or the engine is destroyed.
    pub fn frugal_ckpt_register(
        engine: *mut frugal_ckpt_engine,
        name: *const c_char,
        view: *const frugal_tensor,
        kinds: u32,
    ) -> *mut frugal_error;
    /// ABI 2.2: registers this rank's slice of global tensor `name` on an
    /// engine created with a `comm` option (else FAILED_PRECONDITION). Copies
    /// `slice` and its arrays; BORROWS the view's memory as `frugal_ckpt_register` does.
    pub fn frugal_ckpt_register_slice(
        engine: *mut frugal_ckpt_engine,
        name: *const c_char,
        view: *const frugal_tensor,
        slice: *const frugal_ckpt_slice,
        kinds: u32,
    ) -> *mut frugal_error;
    /// Unregisters the tensor or the state `name`.
    pub fn frugal_ckpt_unregister(engine: *mut frugal_ckpt_engine, name: *const c_char) -> *mut frugal_error;

    /// Copies `fns`; `user_data` must stay valid until unregistered or the engine is destroyed.
    pub fn frugal_ckpt_register_state(
        engine: *mut frugal_ckpt_engine,
        name: *const c_char,
        fns: *const frugal_ckpt_state_fns,
        kinds: u32,
    ) -> *mut frugal_error;
    /// BORROWS `router` until unregistered or the engine is destroyed.
    pub fn frugal_ckpt_register_router(
        engine: *mut frugal_ckpt_engine,
        name: *const c_char,
        router: *mut frugal_router,
        kinds: u32,
    ) -> *mut frugal_error;
    /// BORROWS `quantizer` as `frugal_ckpt_register_router` does.
    pub fn frugal_ckpt_register_quantizer(
        engine: *mut frugal_ckpt_engine,
        name: *const c_char,
        quantizer: *mut frugal_quantizer,
        kinds: u32,
    ) -> *mut frugal_error;
    /// BORROWS `scheduler` as `frugal_ckpt_register_router` does.
    pub fn frugal_ckpt_register_scheduler(
        engine: *mut frugal_ckpt_engine,
        name: *const c_char,
        scheduler: *mut frugal_scheduler,
        kinds: u32,
    ) -> *mut frugal_error;
    /// BORROWS `scaler` as `frugal_ckpt_register_router` does.
    pub fn frugal_ckpt_register_loss_scaler(
        engine: *mut frugal_ckpt_engine,
        name: *const c_char,
        scaler: *mut frugal_loss_scaler,
        kinds: u32,
    ) -> *mut frugal_error;

    /// `result` may be NULL.
    pub fn frugal_ckpt_save(
        engine: *mut frugal_ckpt_engine,
        args: *const frugal_ckpt_save_args,
        result: *mut frugal_ckpt_save_result,
    ) -> *mut frugal_error;
    /// `result` may be NULL.
    pub fn frugal_ckpt_wait(engine: *mut frugal_ckpt_engine, result: *mut frugal_ckpt_persist_result)
        -> *mut frugal_error;

    pub fn frugal_ckpt_list(
        engine: *mut frugal_ckpt_engine,
        flags: u32,
        fn_: frugal_ckpt_list_fn,
        user_data: *mut c_void,
    ) -> *mut frugal_error;
    pub fn frugal_ckpt_verify(engine: *mut frugal_ckpt_engine, name: *const c_char, info: *mut frugal_ckpt_info)
        -> *mut frugal_error;
    pub fn frugal_ckpt_latest(engine: *mut frugal_ckpt_engine, kinds: u32, info: *mut frugal_ckpt_info)
        -> *mut frugal_error;
    /// `*json` owned by the caller; free with `frugal_string_free`.
    pub fn frugal_ckpt_inspect_json(
        engine: *mut frugal_ckpt_engine,
        name: *const c_char,
        json: *mut *mut c_char,
    ) -> *mut frugal_error;
    /// NULL allowed.
    pub fn frugal_string_free(text: *mut c_char);

    /// `name` NULL: the newest that verifies among `kinds`. Too small a
    /// metadata buffer is OUT_OF_RANGE with `*metadata_size` set, nothing restored.
    pub fn frugal_ckpt_restore(
        engine: *mut frugal_ckpt_engine,
        name: *const c_char,
        kinds: u32,
        metadata: *mut c_void,
        capacity: usize,
        metadata_size: *mut usize,
        info: *mut frugal_ckpt_info,
    ) -> *mut frugal_error;
    /// Name `index` (< not_restored_count) of the tensors the
    /// last successful restore did not write; OUT_OF_RANGE past the end or
    /// when `capacity` cannot hold the name and its NUL.
    pub fn frugal_ckpt_restore_report(
        engine: *mut frugal_ckpt_engine,
        index: u32,
        name: *mut c_char,
        capacity: usize,
    ) -> *mut frugal_error;
    /// ABI 2.3: the host metadata rank `rank` (< the restored checkpoint's
    /// world_size, else OUT_OF_RANGE) of the writing job saved in the
    /// checkpoint the last successful restore restored; FAILED_PRECONDITION
    /// before any. Too small a buffer is OUT_OF_RANGE with `*metadata_size`
    /// set, nothing copied. `metadata_size` not NULL; not collective.
    pub fn frugal_ckpt_restored_metadata(
        engine: *mut frugal_ckpt_engine,
        rank: u32,
        metadata: *mut c_void,
        capacity: usize,
        metadata_size: *mut usize,
    ) -> *mut frugal_error;
    /// `removed` may be NULL.
    pub fn frugal_ckpt_gc(engine: *mut frugal_ckpt_engine, removed: *mut u32) -> *mut frugal_error;

    /// `result` not NULL.
    pub fn frugal_ckpt_emergency_save(
        engine: *mut frugal_ckpt_engine,
        args: *const frugal_ckpt_save_args,
        deadline_seconds: f64,
        result: *mut frugal_ckpt_emergency_result,
    ) -> *mut frugal_error;
    pub fn frugal_preemption_install_sigterm() -> *mut frugal_error;
    pub fn frugal_preemption_uninstall_sigterm();
    pub fn frugal_preemption_pending() -> i32;
    /// ABI 2.3: `*pending` (not NULL) is 1 when any rank of the engine's
    /// comm had a notice (then recorded on every rank), else 0; collective
    /// with a comm, this process's notice without one.
    pub fn frugal_ckpt_preemption_agree(engine: *mut frugal_ckpt_engine, pending: *mut i32) -> *mut frugal_error;
    pub fn frugal_preemption_notify();
    pub fn frugal_preemption_clear();
}
