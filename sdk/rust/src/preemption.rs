//! Preemption notices (frugal/checkpoint.h), process-wide.
//!
//! A notice is one flag per process: set by the opt-in SIGTERM handler or
//! by [`notify`] (e.g. after a cloud metadata poll says the node goes
//! away). The host polls [`pending`] at a step boundary, takes
//! [`crate::CkptEngine::emergency_save`] within the notice period, then
//! exits; a job of several ranks polls
//! [`crate::CkptEngine::preemption_agree`] instead (ABI 2.3), so that a
//! notice on any rank makes every rank take it at the same step. Every
//! function here may be called from any thread; they act on state shared
//! by the whole process (every thread, every engine).

use crate::error::{check, Result};
use crate::sys;

/// Records a notice learnt another way. Async-signal-safe in the core.
pub fn notify() {
    // SAFETY: no arguments; process-wide flag.
    unsafe { sys::frugal_preemption_notify() }
}

/// Whether a notice arrived (SIGTERM, or [`notify`]) since the last [`clear`].
pub fn pending() -> bool {
    // SAFETY: no arguments; reads a process-wide flag.
    unsafe { sys::frugal_preemption_pending() != 0 }
}

/// Clears a recorded notice.
pub fn clear() {
    // SAFETY: no arguments; process-wide flag.
    unsafe { sys::frugal_preemption_clear() }
}

/// Installs the core's SIGTERM handler, which only records the notice and
/// replaces SIGTERM's default termination: after this, SIGTERM no longer
/// ends the process until [`uninstall_sigterm`]. Idempotent.
pub fn install_sigterm() -> Result<()> {
    // SAFETY: no arguments; installs a process-wide signal handler.
    check(unsafe { sys::frugal_preemption_install_sigterm() })
}

/// Restores the SIGTERM disposition in place before [`install_sigterm`].
pub fn uninstall_sigterm() {
    // SAFETY: no arguments; restores a process-wide signal disposition.
    unsafe { sys::frugal_preemption_uninstall_sigterm() }
}
