//! frugal/schedule.h: learning-rate schedule objects.
//!
//! `frugal_schedule_lr` may run concurrently on one schedule only when the
//! strategy has FRUGAL_STRATEGY_THREAD_SAFE; destroy must not race any call.

use std::os::raw::c_char;

use super::types::{frugal_context, frugal_error, frugal_options};

/// Opaque schedule; owned by its creator, may outlive the context.
#[repr(C)]
pub struct frugal_schedule {
    _opaque: [u8; 0],
}

extern "C" {
    /// `options` may be NULL and is read during the call only.
    pub fn frugal_schedule_create(
        context: *mut frugal_context,
        name: *const c_char,
        options: *const frugal_options,
        out: *mut *mut frugal_schedule,
    ) -> *mut frugal_error;
    pub fn frugal_schedule_lr(schedule: *mut frugal_schedule, step: i64, lr: *mut f64) -> *mut frugal_error;
    /// NULL allowed; may unload the plugin on the calling thread.
    pub fn frugal_schedule_destroy(schedule: *mut frugal_schedule);
}
