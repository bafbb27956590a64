//! Host state a checkpoint engine saves and restores with the tensors
//! (frugal/checkpoint.h, "Host state"): the core's own objects
//! ([`CkptObject`]) and any Rust state as bytes ([`HostState`]).
//!
//! The engine calls a state's functions on the thread calling save,
//! emergency save or restore, inside that call, under its lock. A Rust
//! state is reached through `extern "C"` trampolines that never let a panic
//! cross into C: a panic, like an `Err`, becomes a frugal error naming the
//! state, which fails that save or restore.

use std::any::Any;
use std::ffi::CString;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};

use crate::error::{Error, ErrorCode};
use crate::loss_scaler::LossScaler;
use crate::quantizer::Quantizer;
use crate::router::Router;
use crate::scheduler::Scheduler;
use crate::sys;

/// Rust state saved as bytes in every checkpoint (at most
/// [`sys::FRUGAL_CKPT_STATE_MAX_SIZE`]).
///
/// `export_state` runs once per save of the state's kinds, `import_state`
/// once per restore that holds it, both on the thread calling save or
/// restore; neither may call the engine (it is locked). An import that
/// fails cannot roll back what the restore wrote before it: it should leave
/// the state as it was.
pub trait HostState: Send + 'static {
    /// The state's bytes.
    fn export_state(&mut self) -> crate::Result<Vec<u8>>;
    /// Restores bytes `export_state` produced.
    fn import_state(&mut self, data: &[u8]) -> crate::Result<()>;
}

mod sealed {
    pub trait Sealed {}
}

/// A core object whose own export/import the engine calls
/// (`frugal_ckpt_register_router` and the others): [`Router`],
/// [`Quantizer`], [`Scheduler`], [`LossScaler`].
pub trait CkptObject: sealed::Sealed + Send + 'static {
    #[doc(hidden)]
    /// # Safety
    /// `engine` live, `name` a NUL-terminated string; `self` must outlive the registration.
    unsafe fn register_raw(&self, engine: *mut sys::frugal_ckpt_engine, name: *const c_char, kinds: u32)
        -> *mut sys::frugal_error;
}

macro_rules! ckpt_object {
    ($type:ty, $register:ident) => {
        impl sealed::Sealed for $type {}
        impl CkptObject for $type {
            unsafe fn register_raw(&self, engine: *mut sys::frugal_ckpt_engine, name: *const c_char, kinds: u32)
                -> *mut sys::frugal_error {
                sys::$register(engine, name, self.as_ptr(), kinds)
            }
        }
    };
}

ckpt_object!(Router, frugal_ckpt_register_router);
ckpt_object!(Quantizer, frugal_ckpt_register_quantizer);
ckpt_object!(Scheduler, frugal_ckpt_register_scheduler);
ckpt_object!(LossScaler, frugal_ckpt_register_loss_scaler);

/// A registered [`HostState`] with what its trampolines need.
struct StateSlot<S> {
    name: String,
    state: S,
    /// The export of a size query, copied by the call that follows it.
    pending: Option<Vec<u8>>,
}

/// Owns a heap [`StateSlot`] whose address the engine holds as user_data:
/// a raw pointer, so moving the handle never invalidates the engine's.
pub(crate) struct SlotHandle<S> {
    slot: NonNull<StateSlot<S>>,
}

// SAFETY: the slot is reached by the engine's calls (serialised by its lock)
// or through `&mut` of the engine that owns this handle; `S: Send`.
unsafe impl<S: Send> Send for SlotHandle<S> {}

impl<S> Drop for SlotHandle<S> {
    fn drop(&mut self) {
        // SAFETY: made by Box::into_raw in `state_fns`; the engine stopped
        // calling the trampolines (unregistered or destroyed) before this.
        drop(unsafe { Box::from_raw(self.slot.as_ptr()) });
    }
}

impl<S> SlotHandle<S> {
    pub(crate) fn state_mut(&mut self) -> &mut S {
        // SAFETY: owned slot; `&mut self` excludes any other reference.
        unsafe { &mut (*self.slot.as_ptr()).state }
    }

    pub(crate) fn into_state(self) -> S {
        let slot = self.slot;
        std::mem::forget(self);
        // SAFETY: as in drop; ownership moves out once.
        unsafe { Box::from_raw(slot.as_ptr()) }.state
    }
}

/// The function table for `state` and the handle owning it.
pub(crate) fn state_fns<S: HostState>(name: &str, state: S) -> (sys::frugal_ckpt_state_fns, SlotHandle<S>) {
    let slot = Box::new(StateSlot { name: name.to_string(), state, pending: None });
    let slot = NonNull::new(Box::into_raw(slot)).expect("Box::into_raw is never NULL");
    let fns = sys::frugal_ckpt_state_fns {
        struct_size: std::mem::size_of::<sys::frugal_ckpt_state_fns>(),
        user_data: slot.as_ptr() as *mut c_void,
        export_state: Some(export_trampoline::<S>),
        import_state: Some(import_trampoline::<S>),
    };
    (fns, SlotHandle { slot })
}

/// A frugal error for the engine to report (it destroys it).
fn c_error(code: ErrorCode, message: &str) -> *mut sys::frugal_error {
    let text = CString::new(message.replace('\0', " ")).expect("NULs were replaced");
    // SAFETY: a NUL-terminated message, copied by the call.
    unsafe { sys::frugal_error_create(code.raw(), text.as_ptr()) }
}

fn from_error(name: &str, action: &str, error: &Error) -> *mut sys::frugal_error {
    c_error(error.code(), &format!("state '{}': {} failed: {}", name, action, error.message()))
}

fn from_panic(name: &str, action: &str, panic: &(dyn Any + Send)) -> *mut sys::frugal_error {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string payload".to_string());
    c_error(ErrorCode::Internal, &format!("state '{}': {} panicked: {}", name, action, what))
}

impl<S: HostState> StateSlot<S> {
    fn export(&mut self, buffer: *mut c_void, capacity: usize, size: &mut usize) -> *mut sys::frugal_error {
        let data = match self.pending.take() {
            Some(data) if !buffer.is_null() => data,
            _ => match self.state.export_state() {
                Ok(data) => data,
                Err(error) => return from_error(&self.name, "export_state", &error),
            },
        };
        *size = data.len();
        if buffer.is_null() {
            self.pending = Some(data);
            return ptr::null_mut();
        }
        if capacity < data.len() {
            let message = format!("state '{}': {} bytes do not fit in {}", self.name, data.len(), capacity);
            return c_error(ErrorCode::OutOfRange, &message);
        }
        // SAFETY: the engine's buffer holds `capacity` >= data.len() bytes.
        unsafe { ptr::copy_nonoverlapping(data.as_ptr(), buffer as *mut u8, data.len()) };
        ptr::null_mut()
    }
}

unsafe extern "C" fn export_trampoline<S: HostState>(
    user_data: *mut c_void,
    buffer: *mut c_void,
    capacity: usize,
    size: *mut usize,
) -> *mut sys::frugal_error {
    // SAFETY: user_data is the live slot of `state_fns`; the engine calls one function at a time.
    let slot = &mut *(user_data as *mut StateSlot<S>);
    match catch_unwind(AssertUnwindSafe(|| slot.export(buffer, capacity, &mut *size))) {
        Ok(error) => error,
        Err(panic) => {
            slot.pending = None;
            from_panic(&slot.name, "export_state", panic.as_ref())
        }
    }
}

unsafe extern "C" fn import_trampoline<S: HostState>(
    user_data: *mut c_void,
    data: *const c_void,
    size: usize,
) -> *mut sys::frugal_error {
    // SAFETY: as in export_trampoline; `data` holds `size` bytes (never NULL) during the call.
    let slot = &mut *(user_data as *mut StateSlot<S>);
    let bytes = std::slice::from_raw_parts(data as *const u8, size);
    match catch_unwind(AssertUnwindSafe(|| slot.state.import_state(bytes))) {
        Ok(Ok(())) => ptr::null_mut(),
        Ok(Err(error)) => from_error(&slot.name, "import_state", &error),
        Err(panic) => from_panic(&slot.name, "import_state", panic.as_ref()),
    }
}
