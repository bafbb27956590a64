//! `CkptEngine`: the checkpoint engine (frugal/checkpoint.h) over
//! registered tensors that borrow Rust slices.
//!
//! Soundness of registration: the core keeps a registered tensor's data
//! pointer and reads it on every save and writes it on every restore,
//! until the tensor is unregistered or the engine destroyed. So
//! [`CkptEngine::register`] takes the [`TensorMut<'buf>`] view *by value*
//! and the engine carries the lifetime `'buf`: the borrow checker then
//! keeps every registered slice alive, and untouched by other code, for as
//! long as the engine lives. The host reaches its registered data through
//! the engine ([`CkptEngine::tensor`], [`CkptEngine::tensor_mut`]), and
//! since writing needs `&mut` engine while save needs `&` and restore
//! `&mut`, the host can never write a registered tensor while a save or
//! restore runs, which the header forbids.
//!
//! Host state follows the same rule: the engine takes the core
//! object ([`CkptEngine::register_object`]: a router, quantizer, scheduler
//! or loss scaler) or the [`HostState`] ([`CkptEngine::register_state`])
//! by value, the host reaches it through [`CkptEngine::state_mut`], and
//! [`CkptEngine::unregister_state`] hands it back. So the object outlives
//! its registration, and nothing uses it while a save or restore runs.
//!
//! Sharded checkpoints (ABI 2.2): an engine created with a `comm` option
//! ([`Options::set_comm`]) saves and restores with every rank of that comm,
//! one checkpoint for the job. [`CkptEngine::register_slice`] registers
//! this rank's box of a global tensor ([`CkptSlice`]), borrowed like any
//! registered tensor; a job of any number of ranks restores the
//! checkpoint, each rank reading only what overlaps its own slices.
//! ABI 2.3 adds [`CkptEngine::preemption_agree`], so that a preemption
//! notice on any rank reaches every rank at the same step, and
//! [`CkptEngine::restored_metadata`], the metadata any saving rank kept,
//! for a job resumed on another number of ranks.

use std::collections::BTreeMap;
use std::ffi::CStr;
use std::mem::size_of;
use std::os::raw::{c_char, c_void};
use std::ptr::{self, NonNull};

use std::any::Any;

use crate::ckpt_slice::CkptSlice;
use crate::ckpt_state::{state_fns, CkptObject, HostState, SlotHandle};
use crate::error::{check, Error, ErrorCode, Result};
use crate::loss_scaler::LossScaler;
use crate::options::Options;
use crate::quantizer::Quantizer;
use crate::router::Router;
use crate::scheduler::Scheduler;
use crate::store::Store;
use crate::strings::to_c_string;
use crate::sys;
use crate::tensor::{Element, TensorMut};

/// The two kinds of saved checkpoint (a decision's `checkpoint` is one of
/// them or `sys::FRUGAL_CKPT_NONE`: [`CkptKind::from_raw`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CkptKind {
    /// Light, frequent: what is needed to resume.
    Heartbeat,
    /// Everything registered.
    Full,
}

impl CkptKind {
    /// The C value (`sys::FRUGAL_CKPT_HEARTBEAT` / `_FULL`), also a mask bit.
    pub fn raw(self) -> i32 {
        match self {
            CkptKind::Heartbeat => sys::FRUGAL_CKPT_HEARTBEAT,
            CkptKind::Full => sys::FRUGAL_CKPT_FULL,
        }
    }

    /// The kind of a C value, e.g. a scheduler decision's `checkpoint`;
    /// `None` for `sys::FRUGAL_CKPT_NONE` and any other value.
    pub fn from_raw(raw: i32) -> Option<CkptKind> {
        match raw {
            sys::FRUGAL_CKPT_HEARTBEAT => Some(CkptKind::Heartbeat),
            sys::FRUGAL_CKPT_FULL => Some(CkptKind::Full),
            _ => None,
        }
    }
}

/// Outcome of a save.
#[derive(Debug, Clone, PartialEq)]
pub struct SaveResult {
    /// The checkpoint started ("" when skipped).
    pub name: String,
    /// SKIP_IF_BUSY dropped the request.
    pub skipped: bool,
    /// Tensor and metadata bytes in the snapshot.
    pub bytes: u64,
    pub wait_seconds: f64,
    pub snapshot_seconds: f64,
}

/// Outcome of the last persist.
#[derive(Debug, Clone, PartialEq)]
pub struct PersistResult {
    /// The checkpoint persisted ("" if none since the last wait).
    pub name: String,
    pub bytes: u64,
    pub persist_seconds: f64,
}

/// Outcome of an emergency save.
#[derive(Debug, Clone, PartialEq)]
pub struct EmergencyResult {
    /// The emergency heartbeat's name.
    pub name: String,
    /// Its manifest was durable before the deadline.
    pub committed: bool,
    /// From the call to the commit (or to the deadline).
    pub seconds: f64,
}

/// One checkpoint found in the store.
#[derive(Debug, Clone, PartialEq)]
pub struct CkptInfo {
    pub name: String,
    /// `sys::FRUGAL_CKPT_HEARTBEAT` or `_FULL`.
    pub kind: i32,
    /// `sys::FRUGAL_CKPT_VALID`, `_INCOMPLETE`, `_CORRUPT`, ...
    pub status: i32,
    pub step: u64,
    pub sequence: u64,
    pub created_unix_ns: i64,
    pub bytes: u64,
    pub tensor_count: u32,
    /// Registered states in it (`register_state`, `register_router`, ...).
    pub state_count: u32,
    pub emergency: bool,
    /// Why it is not valid ("" when it is).
    pub reason: String,
    /// Ranks of the job that wrote it (ABI 2.3): 1 for an engine without a
    /// comm, the comm's size otherwise; 0 when no manifest was read (an
    /// incomplete or unreadable checkpoint in a listing).
    pub world_size: u32,
}

/// What a restore brought back.
#[derive(Debug, Clone, PartialEq)]
pub struct Restored {
    /// The checkpoint restored.
    pub info: CkptInfo,
    /// The host metadata saved with it.
    pub metadata: Vec<u8>,
    /// The full checkpoint the full-only tensors were restored from: the
    /// restored one itself when it is full, the newest valid full one
    /// written before a restored heartbeat, "" when none supplied state.
    pub full_source: String,
    /// The registered tensors and states the restore left as they were
    /// (e.g. a heartbeat's full-only state with no valid full checkpoint
    /// before it, or a state the checkpoint does not hold); empty when
    /// everything was restored.
    pub not_restored: Vec<String>,
}

fn wrong_type<T>(name: &str) -> Error {
    let message = format!("state '{}' is not a {}", name, std::any::type_name::<T>());
    Error::new(ErrorCode::InvalidArgument, &message)
}

/// Copies a fixed-size C name field, up to its NUL.
fn fixed_str(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The bytes `fill(buffer, size)` writes, in a buffer of
/// `FIRST_METADATA_CAPACITY` bytes or, when `fill` reports
/// `ErrorCode::OutOfRange` with a larger `size` (having written nothing
/// else), in one of that size (again if the size grew meanwhile).
fn grown_metadata(mut fill: impl FnMut(&mut [u8], &mut usize) -> Result<()>) -> Result<Vec<u8>> {
    let mut metadata = vec![0u8; FIRST_METADATA_CAPACITY];
    loop {
        let mut size = 0usize;
        match fill(&mut metadata, &mut size) {
            Ok(()) => {
                metadata.truncate(size);
                return Ok(metadata);
            }
            Err(e) if e.code() == ErrorCode::OutOfRange && size > metadata.len() => metadata = vec![0u8; size],
            Err(e) => return Err(e),
        }
    }
}

fn zeroed_info() -> sys::frugal_ckpt_info {
    // SAFETY: all-zero is a valid value of this plain C struct.
    let mut info: sys::frugal_ckpt_info = unsafe { std::mem::zeroed() };
    info.struct_size = size_of::<sys::frugal_ckpt_info>();
    info
}

fn info_of(c: &sys::frugal_ckpt_info) -> CkptInfo {
    CkptInfo {
        name: fixed_str(&c.name),
        kind: c.kind,
        status: c.status,
        step: c.step,
        sequence: c.sequence,
        created_unix_ns: c.created_unix_ns,
        bytes: c.bytes,
        tensor_count: c.tensor_count,
        state_count: c.state_count,
        emergency: c.emergency != 0,
        reason: fixed_str(&c.reason),
        world_size: c.world_size,
    }
}

/// Appends each listed checkpoint to the `Vec<CkptInfo>` behind `user_data`.
unsafe extern "C" fn collect_info(user_data: *mut c_void, info: *const sys::frugal_ckpt_info) -> i32 {
    let infos = &mut *(user_data as *mut Vec<CkptInfo>);
    infos.push(info_of(&*info));
    0
}

/// Metadata buffer tried first by restore; a larger metadata is fetched
/// with a second call of the exact size.
const FIRST_METADATA_CAPACITY: usize = 64 * 1024;

/// A checkpoint engine writing through a store, with registered tensors
/// that borrow slices for `'buf` (see the module documentation).
///
/// Dropping it waits for the in-flight persist and destroys the engine,
/// and only then releases the registered views.
///
/// `Send + Sync`: checkpoint.h lets every engine function run on any
/// thread (serialised inside); the registered views are `Send + Sync`.
pub struct CkptEngine<'buf> {
    raw: NonNull<sys::frugal_ckpt_engine>,
    registered: BTreeMap<String, TensorMut<'buf>>,
    /// Registered host state: a `CkptObject` or a `SlotHandle<S: HostState>`.
    states: BTreeMap<String, Box<dyn Any + Send>>,
}

// SAFETY: see the type's documentation.
unsafe impl Send for CkptEngine<'_> {}
// SAFETY: as above; writes to registered memory need &mut self, and the
// registered states (Send, not necessarily Sync) are reached only through
// &mut self or by the engine's own calls, which its lock serialises.
unsafe impl Sync for CkptEngine<'_> {}

impl<'buf> CkptEngine<'buf> {
    /// Creates an engine on `store` (which it keeps open: the `Store` may
    /// be dropped first). Options: keep_heartbeats, keep_full, shard_bytes,
    /// prefix, and comm ([`Options::set_comm`], ABI 2.2; a comm taking host
    /// memory, "local" or "mpi"): the job's ranks then save and restore
    /// together. Creating the engine is then collective over the comm, as
    /// are [`save`](CkptEngine::save), [`emergency_save`](CkptEngine::emergency_save)
    /// and [`restore`](CkptEngine::restore): every rank calls them in the
    /// same order with the same kind and step. The engine keeps sub-groups
    /// of its own, so the `Comm` and the `Options` may be dropped once it
    /// is created.
    pub fn new(store: &Store, options: Option<&Options>) -> Result<CkptEngine<'buf>> {
        let options = options.map_or(ptr::null(), |o| o.as_ptr());
        let mut raw = ptr::null_mut();
        // SAFETY: live store; options read during the call.
        check(unsafe { sys::frugal_ckpt_engine_create(store.as_ptr(), options, &mut raw) })?;
        Ok(CkptEngine {
            raw: NonNull::new(raw).expect("frugal_ckpt_engine_create succeeded with NULL"),
            registered: BTreeMap::new(),
            states: BTreeMap::new(),
        })
    }

    /// Registers `tensor` under `name` for the checkpoint kinds in `kinds`
    /// (a mask of `CkptKind::raw` bits; 0 = all). The engine keeps the view
    /// (and so the slice's borrow) until [`CkptEngine::unregister`] or drop.
    pub fn register(&mut self, name: &str, mut tensor: TensorMut<'buf>, kinds: u32) -> Result<()> {
        let c_name = to_c_string("tensor name", name)?;
        let view = tensor.raw();
        // SAFETY: live engine; the view's memory stays borrowed by the
        // engine (stored below) for as long as the core may use it.
        check(unsafe { sys::frugal_ckpt_register(self.raw.as_ptr(), c_name.as_ptr(), &view, kinds) })?;
        self.registered.insert(name.to_string(), tensor);
        Ok(())
    }

    /// Registers this rank's part of the global tensor `name` (see
    /// [`CkptSlice`]) for the checkpoint kinds in `kinds`, on an engine
    /// created with a comm option; the engine keeps the view (and so the
    /// slice's borrow) as [`CkptEngine::register`] does. `slice` is read
    /// during the call only.
    ///
    /// Errors: `ErrorCode::InvalidArgument` from the binding when
    /// `slice.global_shape` (or non-empty `slice.offsets`) does not have
    /// one value per dimension of `tensor`; from the core,
    /// `ErrorCode::FailedPrecondition` on an engine without a comm,
    /// `ErrorCode::OutOfRange` for a box outside the global shape,
    /// `ErrorCode::InvalidArgument` for a replicated tensor that is not
    /// whole, `ErrorCode::AlreadyExists` for a name taken. On an error the
    /// view is dropped.
    pub fn register_slice(
        &mut self,
        name: &str,
        mut tensor: TensorMut<'buf>,
        slice: &CkptSlice<'_>,
        kinds: u32,
    ) -> Result<()> {
        let c_name = to_c_string("tensor name", name)?;
        let raw_slice = slice.raw(name, tensor.shape().len())?;
        let view = tensor.raw();
        // SAFETY: live engine; `raw_slice` points into `slice`, alive for
        // the call, and is copied by the core; the view's memory stays
        // borrowed by the engine (stored below), as in register.
        check(unsafe {
            sys::frugal_ckpt_register_slice(self.raw.as_ptr(), c_name.as_ptr(), &view, &raw_slice, kinds)
        })?;
        self.registered.insert(name.to_string(), tensor);
        Ok(())
    }

    /// Registers a core object under `name` (the tensors' namespace) for
    /// the checkpoint kinds in `kinds`: each save stores its exported
    /// state, each restore imports it. The engine owns the object until
    /// [`CkptEngine::unregister_state`] or drop; use it meanwhile through
    /// [`CkptEngine::state_mut`]. On an error the object is dropped.
    pub fn register_object<T: CkptObject>(&mut self, name: &str, object: T, kinds: u32) -> Result<()> {
        let c_name = to_c_string("state name", name)?;
        // SAFETY: live engine; the object (its C handle) is kept below until
        // the core stops using it (unregister_state, or drop after destroy).
        check(unsafe { object.register_raw(self.raw.as_ptr(), c_name.as_ptr(), kinds) })?;
        self.states.insert(name.to_string(), Box::new(object));
        Ok(())
    }

    /// [`CkptEngine::register_object`] for a router (its bias, for one).
    pub fn register_router(&mut self, name: &str, router: Router, kinds: u32) -> Result<()> {
        self.register_object(name, router, kinds)
    }

    /// [`CkptEngine::register_object`] for a quantizer (its scale history).
    pub fn register_quantizer(&mut self, name: &str, quantizer: Quantizer, kinds: u32) -> Result<()> {
        self.register_object(name, quantizer, kinds)
    }

    /// [`CkptEngine::register_object`] for a scheduler; each save's export
    /// counts as a checkpoint in its ledger.
    pub fn register_scheduler(&mut self, name: &str, scheduler: Scheduler, kinds: u32) -> Result<()> {
        self.register_object(name, scheduler, kinds)
    }

    /// [`CkptEngine::register_object`] for a loss scaler (scale and counters).
    pub fn register_loss_scaler(&mut self, name: &str, scaler: LossScaler, kinds: u32) -> Result<()> {
        self.register_object(name, scaler, kinds)
    }

    /// Registers Rust state saved as bytes under `name` (see
    /// [`HostState`]); owned by the engine like a core object. An `Err` or
    /// a panic of its functions fails that save or restore with an error
    /// naming the state (a panic as `ErrorCode::Internal`).
    pub fn register_state<S: HostState>(&mut self, name: &str, state: S, kinds: u32) -> Result<()> {
        let c_name = to_c_string("state name", name)?;
        let (fns, handle) = state_fns(name, state);
        // SAFETY: live engine; `fns` is copied; its user_data (owned by
        // `handle`) stays valid until unregister_state or drop.
        check(unsafe { sys::frugal_ckpt_register_state(self.raw.as_ptr(), c_name.as_ptr(), &fns, kinds) })?;
        self.states.insert(name.to_string(), Box::new(handle));
        Ok(())
    }

    /// The registered state `name` (a core object or a [`HostState`]) as
    /// `T`; `&mut self` keeps any save or restore from running meanwhile.
    pub fn state_mut<T: Any>(&mut self, name: &str) -> Result<&mut T> {
        let entry = self
            .states
            .get_mut(name)
            .ok_or_else(|| Error::new(ErrorCode::NotFound, &format!("no state '{}' is registered", name)))?;
        if entry.is::<T>() {
            return Ok(entry.downcast_mut::<T>().expect("checked"));
        }
        match entry.downcast_mut::<SlotHandle<T>>() {
            Some(handle) => Ok(handle.state_mut()),
            None => Err(wrong_type::<T>(name)),
        }
    }

    /// Unregisters state `name` and hands it back as `T`;
    /// `ErrorCode::NotFound` if no state is registered under `name`,
    /// `ErrorCode::InvalidArgument` (still registered) if it is not a `T`.
    pub fn unregister_state<T: Any>(&mut self, name: &str) -> Result<T> {
        self.state_mut::<T>(name)?;
        let c_name = to_c_string("state name", name)?;
        // SAFETY: live engine; once this returns the core never calls the state again.
        check(unsafe { sys::frugal_ckpt_unregister(self.raw.as_ptr(), c_name.as_ptr()) })?;
        let entry = self.states.remove(name).expect("checked above");
        match entry.downcast::<T>() {
            Ok(object) => Ok(*object),
            Err(entry) => Ok(entry.downcast::<SlotHandle<T>>().expect("checked above").into_state()),
        }
    }

    /// Unregisters tensor `name` and hands its view back;
    /// `ErrorCode::NotFound` if it is not registered (a state is
    /// unregistered with [`CkptEngine::unregister_state`]).
    pub fn unregister(&mut self, name: &str) -> Result<TensorMut<'buf>> {
        if self.states.contains_key(name) {
            let message = format!("'{}' is a registered state: unregister it with unregister_state", name);
            return Err(Error::new(ErrorCode::InvalidArgument, &message));
        }
        let c_name = to_c_string("tensor name", name)?;
        // SAFETY: live engine.
        check(unsafe { sys::frugal_ckpt_unregister(self.raw.as_ptr(), c_name.as_ptr()) })?;
        // The core knew the name, so this binding registered it.
        Ok(self.registered.remove(name).expect("a tensor the core had registered"))
    }

    fn registered_view(&self, name: &str) -> Result<&TensorMut<'buf>> {
        self.registered
            .get(name)
            .ok_or_else(|| Error::new(ErrorCode::NotFound, &format!("no tensor '{}' is registered", name)))
    }

    /// The data of registered tensor `name` as `T` (which must carry its dtype).
    pub fn tensor<T: Element>(&self, name: &str) -> Result<&[T]> {
        self.registered_view(name)?.as_slice()
    }

    /// The data of registered tensor `name`, writable; `&mut self` keeps any
    /// save or restore from running meanwhile.
    pub fn tensor_mut<T: Element>(&mut self, name: &str) -> Result<&mut [T]> {
        self.registered
            .get_mut(name)
            .ok_or_else(|| Error::new(ErrorCode::NotFound, &format!("no tensor '{}' is registered", name)))?
            .as_mut_slice()
    }

    /// Takes a checkpoint of `kind` for `step` with host `metadata`
    /// (copied). Persists in the background unless `flags` has
    /// `sys::FRUGAL_CKPT_SAVE_WAIT`.
    pub fn save(&self, kind: CkptKind, step: u64, metadata: &[u8], flags: u32) -> Result<SaveResult> {
        let args = save_args(kind.raw(), flags, step, metadata);
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut r: sys::frugal_ckpt_save_result = unsafe { std::mem::zeroed() };
        r.struct_size = size_of::<sys::frugal_ckpt_save_result>();
        // SAFETY: live engine; registered memory is only read (no &mut to it
        // can exist while `&self` is held).
        check(unsafe { sys::frugal_ckpt_save(self.raw.as_ptr(), &args, &mut r) })?;
        Ok(SaveResult {
            name: fixed_str(&r.name),
            skipped: r.skipped != 0,
            bytes: r.bytes as u64,
            wait_seconds: r.wait_seconds,
            snapshot_seconds: r.snapshot_seconds,
        })
    }

    /// Takes an emergency heartbeat (e.g. on a preemption notice, see
    /// [`crate::preemption`]) for `step` with host `metadata` (copied), and
    /// waits for it at most `deadline_seconds` (> 0, else
    /// `ErrorCode::InvalidArgument`) from the call, an in-flight persist
    /// included. A save that misses the deadline is reported with
    /// `committed == false` and keeps persisting in the background.
    pub fn emergency_save(&self, step: u64, metadata: &[u8], deadline_seconds: f64) -> Result<EmergencyResult> {
        // The kind is ignored: an emergency save is always a heartbeat.
        let args = save_args(sys::FRUGAL_CKPT_HEARTBEAT, 0, step, metadata);
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut r: sys::frugal_ckpt_emergency_result = unsafe { std::mem::zeroed() };
        r.struct_size = size_of::<sys::frugal_ckpt_emergency_result>();
        // SAFETY: live engine; registered memory is only read, as in save.
        check(unsafe { sys::frugal_ckpt_emergency_save(self.raw.as_ptr(), &args, deadline_seconds, &mut r) })?;
        Ok(EmergencyResult { name: fixed_str(&r.name), committed: r.committed != 0, seconds: r.seconds })
    }

    /// Blocks until no persist is in flight; returns the last persist's
    /// error if it failed and was not reported before.
    pub fn wait(&self) -> Result<PersistResult> {
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut r: sys::frugal_ckpt_persist_result = unsafe { std::mem::zeroed() };
        r.struct_size = size_of::<sys::frugal_ckpt_persist_result>();
        // SAFETY: live engine; caller-allocated result.
        check(unsafe { sys::frugal_ckpt_wait(self.raw.as_ptr(), &mut r) })?;
        Ok(PersistResult { name: fixed_str(&r.name), bytes: r.bytes, persist_seconds: r.persist_seconds })
    }

    /// Every checkpoint under the engine's prefix, newest first. `flags`:
    /// `sys::FRUGAL_CKPT_LIST_VERIFY_SHARDS` to read and check every shard.
    pub fn list(&self, flags: u32) -> Result<Vec<CkptInfo>> {
        let mut infos: Vec<CkptInfo> = Vec::new();
        // SAFETY: live engine; the callback only appends to `infos`, which
        // outlives the call, and never unwinds.
        check(unsafe {
            sys::frugal_ckpt_list(self.raw.as_ptr(), flags, Some(collect_info), &mut infos as *mut _ as *mut c_void)
        })?;
        Ok(infos)
    }

    /// Fully verifies checkpoint `name` (status and reason in the result).
    pub fn verify(&self, name: &str) -> Result<CkptInfo> {
        let name = to_c_string("checkpoint name", name)?;
        let mut info = zeroed_info();
        // SAFETY: live engine; caller-allocated info.
        check(unsafe { sys::frugal_ckpt_verify(self.raw.as_ptr(), name.as_ptr(), &mut info) })?;
        Ok(info_of(&info))
    }

    /// The newest checkpoint of a kind in `kinds` (mask; `sys::FRUGAL_CKPT_ALL_KINDS`
    /// for any) that fully verifies; `ErrorCode::NotFound` when none does.
    pub fn latest(&self, kinds: u32) -> Result<CkptInfo> {
        let mut info = zeroed_info();
        // SAFETY: live engine; caller-allocated info.
        check(unsafe { sys::frugal_ckpt_latest(self.raw.as_ptr(), kinds, &mut info) })?;
        Ok(info_of(&info))
    }

    /// The manifest of `name` as JSON.
    pub fn inspect_json(&self, name: &str) -> Result<String> {
        let name = to_c_string("checkpoint name", name)?;
        let mut json: *mut c_char = ptr::null_mut();
        // SAFETY: live engine; on success `json` is ours to free.
        check(unsafe { sys::frugal_ckpt_inspect_json(self.raw.as_ptr(), name.as_ptr(), &mut json) })?;
        // SAFETY: a NUL-terminated string owned by us, freed right after the copy.
        let text = unsafe { CStr::from_ptr(json).to_string_lossy().into_owned() };
        // SAFETY: returned by frugal, freed once.
        unsafe { sys::frugal_string_free(json) };
        Ok(text)
    }

    /// Restores checkpoint `name` (or, with `None`, the newest of `kinds`
    /// that verifies) into the registered tensors, and returns what was
    /// restored with its metadata. Every shard is verified before any
    /// tensor is written, so a bad checkpoint leaves the tensors as they
    /// were. A heartbeat's full-only tensors come from the newest valid full
    /// checkpoint written before it (`full_source`); check `not_restored`
    /// is empty before resuming training.
    pub fn restore(&mut self, name: Option<&str>, kinds: u32) -> Result<Restored> {
        let c_name = match name {
            Some(n) => Some(to_c_string("checkpoint name", n)?),
            None => None,
        };
        let name_ptr = c_name.as_ref().map_or(ptr::null(), |n| n.as_ptr());
        let mut info = zeroed_info();
        let metadata = grown_metadata(|buffer, size| {
            info = zeroed_info();
            // SAFETY: live engine, exclusively borrowed, so nothing reads or
            // writes the registered memory meanwhile; `buffer` holds its
            // length in bytes. Too small a buffer restores nothing.
            check(unsafe {
                sys::frugal_ckpt_restore(
                    self.raw.as_ptr(),
                    name_ptr,
                    kinds,
                    buffer.as_mut_ptr() as *mut c_void,
                    buffer.len(),
                    size,
                    &mut info,
                )
            })
        })?;
        let not_restored = self.restore_report(info.not_restored_count)?;
        let full_source = fixed_str(&info.full_source);
        Ok(Restored { info: info_of(&info), metadata, full_source, not_restored })
    }

    /// The names of the `count` tensors the last restore did not write.
    fn restore_report(&self, count: u32) -> Result<Vec<String>> {
        let mut names = Vec::new();
        let mut name = [0 as c_char; sys::FRUGAL_CKPT_TENSOR_NAME_CAPACITY];
        for index in 0..count {
            // SAFETY: live engine; `name` holds its length in bytes.
            check(unsafe { sys::frugal_ckpt_restore_report(self.raw.as_ptr(), index, name.as_mut_ptr(), name.len()) })?;
            names.push(fixed_str(&name));
        }
        Ok(names)
    }

    /// The host metadata that rank `rank` of the writing job saved in the
    /// checkpoint the last successful [`CkptEngine::restore`] restored (ABI
    /// 2.3). `restore` returns this rank's own metadata only when the job
    /// that saved had as many ranks (otherwise rank 0's); a job resumed on
    /// another number of ranks reads here what any saving rank kept (e.g.
    /// to share out its data-loader cursors). Reads nothing from the store;
    /// not collective.
    ///
    /// Errors: `ErrorCode::OutOfRange` for a rank >= the restored
    /// checkpoint's `world_size` (0 is the only rank of an engine without a
    /// comm), `ErrorCode::FailedPrecondition` before any successful restore.
    pub fn restored_metadata(&self, rank: u32) -> Result<Vec<u8>> {
        grown_metadata(|buffer, size| {
            // SAFETY: live engine; `buffer` holds its length in bytes; no
            // registered memory is touched.
            check(unsafe {
                sys::frugal_ckpt_restored_metadata(
                    self.raw.as_ptr(),
                    rank,
                    buffer.as_mut_ptr() as *mut c_void,
                    buffer.len(),
                    size,
                )
            })
        })
    }

    /// Whether any rank of the engine had a preemption notice ([`crate::preemption`];
    /// ABI 2.3): one all-reduce of one integer, cheap enough to call every
    /// step. With a comm it is collective, like [`CkptEngine::save`] (every
    /// rank calls it in the same order relative to the engine's other
    /// collectives); when any rank had a notice, the notice is recorded on
    /// every rank and every rank gets `true`, so all take
    /// [`CkptEngine::emergency_save`] at the same step. A rank that never
    /// calls makes it fail on the others with the comm's error once the
    /// comm's timeout passes (the engine's comm is then broken; end the
    /// process). Without a comm it reports this process's notice. Without a
    /// call, a notice still reaches every rank with the job's next save.
    pub fn preemption_agree(&mut self) -> Result<bool> {
        let mut pending = 0i32;
        // SAFETY: live engine; valid out pointer.
        check(unsafe { sys::frugal_ckpt_preemption_agree(self.raw.as_ptr(), &mut pending) })?;
        Ok(pending != 0)
    }

    /// Applies retention now; returns how many checkpoints were removed.
    pub fn gc(&self) -> Result<u32> {
        let mut removed = 0u32;
        // SAFETY: live engine; valid out pointer.
        check(unsafe { sys::frugal_ckpt_gc(self.raw.as_ptr(), &mut removed) })?;
        Ok(removed)
    }

    /// The raw handle, still owned by `self`.
    pub fn as_ptr(&self) -> *mut sys::frugal_ckpt_engine {
        self.raw.as_ptr()
    }
}

impl Drop for CkptEngine<'_> {
    fn drop(&mut self) {
        // SAFETY: we own the engine. It is destroyed before `registered`
        // and `states` (dropped after this body), so the core stops using
        // the borrowed memory and the states before they go.
        unsafe { sys::frugal_ckpt_engine_destroy(self.raw.as_ptr()) }
    }
}

/// The arguments of a save; `metadata` must outlive the call they are passed to.
fn save_args(kind: i32, flags: u32, step: u64, metadata: &[u8]) -> sys::frugal_ckpt_save_args {
    sys::frugal_ckpt_save_args {
        struct_size: size_of::<sys::frugal_ckpt_save_args>(),
        kind,
        flags,
        step,
        metadata: if metadata.is_empty() { ptr::null() } else { metadata.as_ptr() as *const c_void },
        metadata_size: metadata.len(),
    }
}
