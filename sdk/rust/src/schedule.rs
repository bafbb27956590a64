//! `Schedule`: a learning-rate schedule strategy instance.

use std::ptr::{self, NonNull};

use crate::context::Context;
use crate::error::{check, Result};
use crate::options::Options;
use crate::strings::to_c_string;
use crate::sys;

/// An LR schedule. Dropping it calls `frugal_schedule_destroy`. It keeps
/// its plugin loaded and may outlive the context that made it.
///
/// `Send` but not `Sync`: schedule.h lets a schedule move between threads,
/// but concurrent `lr` calls are allowed only for strategies flagged
/// thread-safe, which the type system cannot know; share it behind a Mutex.
pub struct Schedule {
    raw: NonNull<sys::frugal_schedule>,
}

// SAFETY: see the type's documentation (schedule.h, "Thread safety").
unsafe impl Send for Schedule {}

impl Schedule {
    /// Creates the schedule `name` ("name" or "plugin/name") from a plugin
    /// loaded in `context`; `options` are read during the call only.
    /// An unknown name is `ErrorCode::NotFound`.
    pub fn new(context: &Context, name: &str, options: Option<&Options>) -> Result<Schedule> {
        let name = to_c_string("schedule name", name)?;
        let options = options.map_or(ptr::null(), |o| o.as_ptr());
        let mut raw = ptr::null_mut();
        // SAFETY: live context; name and options outlive the call.
        check(unsafe { sys::frugal_schedule_create(context.as_ptr(), name.as_ptr(), options, &mut raw) })?;
        Ok(Schedule { raw: NonNull::new(raw).expect("frugal_schedule_create succeeded with NULL") })
    }

    /// The learning rate at `step` (>= 0; a negative step is refused by the
    /// strategy with `ErrorCode::OutOfRange`). Always finite.
    pub fn lr(&self, step: i64) -> Result<f64> {
        let mut lr = 0.0;
        // SAFETY: live schedule; not Sync, so no concurrent call on it.
        check(unsafe { sys::frugal_schedule_lr(self.raw.as_ptr(), step, &mut lr) })?;
        Ok(lr)
    }
}

impl Drop for Schedule {
    fn drop(&mut self) {
        // SAFETY: we own the schedule; `&mut self` excludes other calls.
        unsafe { sys::frugal_schedule_destroy(self.raw.as_ptr()) }
    }
}
