//! `LossScaler`: dynamic loss scaling for FP16 and FP8 training
//! (frugal/loss_scaler.h), PyTorch GradScaler semantics with a floor and a
//! ceiling. Pure host arithmetic in the core; no plugin or context needed.

use std::mem::size_of;
use std::os::raw::c_void;
use std::ptr::{self, NonNull};

use crate::error::{check, Result};
use crate::options::Options;
use crate::state_blob::export_blob;
use crate::sys;

/// A scaler's scale and step counters, read with [`LossScaler::status`] and
/// restored with [`LossScaler::set_status`] (a checkpoint stores the bytes
/// of [`LossScaler::export_state`] instead).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LossScalerStatus {
    /// Current scale, in `[min_scale, max_scale]`.
    pub scale: f64,
    /// Clean steps since the last growth or overflow, in `[0, growth_interval)`.
    pub clean_steps: i64,
    /// Steps skipped for overflow so far.
    pub skipped_steps: i64,
}

/// A dynamic loss scaler. Multiply the loss by [`LossScaler::scale`] before
/// backward and the gradients by its inverse before the optimizer step,
/// then report the step with [`LossScaler::update`]: an overflow skips the
/// step and backs the scale off (not below min_scale); growth_interval
/// clean steps in a row grow it (not above max_scale).
///
/// Dropping it calls `frugal_loss_scaler_destroy`.
///
/// `Send` but not `Sync`: loss_scaler.h says the caller serialises calls
/// on one scaler; every call that changes it takes `&mut self`.
pub struct LossScaler {
    raw: NonNull<sys::frugal_loss_scaler>,
}

// SAFETY: the scaler is plain host state with no thread affinity; the
// missing `Sync` keeps calls on one scaler serialised.
unsafe impl Send for LossScaler {}

impl LossScaler {
    /// Creates a scaler; `options` (read during the call only) may set
    /// init_scale (65536), growth_factor (2), backoff_factor (0.5),
    /// growth_interval (2000), min_scale (1) and max_scale (2^24). An
    /// unknown or bad option is `ErrorCode::InvalidArgument` naming it.
    pub fn new(options: Option<&Options>) -> Result<LossScaler> {
        let options = options.map_or(ptr::null(), |o| o.as_ptr());
        let mut raw = ptr::null_mut();
        // SAFETY: options NULL or live, read during the call; valid out pointer.
        check(unsafe { sys::frugal_loss_scaler_create(options, &mut raw) })?;
        Ok(LossScaler { raw: NonNull::new(raw).expect("frugal_loss_scaler_create succeeded with NULL") })
    }

    /// The current scale (multiply the loss by it).
    pub fn scale(&self) -> f64 {
        // SAFETY: live scaler.
        unsafe { sys::frugal_loss_scaler_scale(self.raw.as_ptr()) }
    }

    /// Reports whether any gradient of this step was NaN or Inf and updates
    /// the scale. Returns whether the optimizer step may be applied
    /// (`false`: skip it).
    pub fn update(&mut self, found_inf: bool) -> Result<bool> {
        let mut apply = 0i32;
        // SAFETY: live scaler, exclusively borrowed; valid out pointer.
        check(unsafe { sys::frugal_loss_scaler_update(self.raw.as_ptr(), i32::from(found_inf), &mut apply) })?;
        Ok(apply != 0)
    }

    /// The scale and the step counters (as a struct; `export_state` gives
    /// the bytes a checkpoint stores).
    pub fn status(&self) -> Result<LossScalerStatus> {
        let mut s = sys::frugal_loss_scaler_status {
            struct_size: size_of::<sys::frugal_loss_scaler_status>(),
            scale: 0.0,
            clean_steps: 0,
            skipped_steps: 0,
        };
        // SAFETY: live scaler; caller-allocated state with struct_size set.
        check(unsafe { sys::frugal_loss_scaler_get_status(self.raw.as_ptr(), &mut s) })?;
        Ok(LossScalerStatus { scale: s.scale, clean_steps: s.clean_steps, skipped_steps: s.skipped_steps })
    }

    /// Restores a status (e.g. from [`LossScaler::status`]). One outside this
    /// scaler's configuration is `ErrorCode::InvalidArgument` and changes
    /// nothing.
    pub fn set_status(&mut self, status: &LossScalerStatus) -> Result<()> {
        let s = sys::frugal_loss_scaler_status {
            struct_size: size_of::<sys::frugal_loss_scaler_status>(),
            scale: status.scale,
            clean_steps: status.clean_steps,
            skipped_steps: status.skipped_steps,
        };
        // SAFETY: live scaler, exclusively borrowed; `s` read during the call.
        check(unsafe { sys::frugal_loss_scaler_set_status(self.raw.as_ptr(), &s) })
    }

    /// The state as the core's versioned, checksummed bytes
    /// (`frugal_loss_scaler_export_state`; what a checkpoint stores).
    pub fn export_state(&self) -> Result<Vec<u8>> {
        // SAFETY: live scaler; the helper passes a buffer of `capacity` bytes or NULL.
        export_blob(|buffer, capacity, size| unsafe {
            sys::frugal_loss_scaler_export_state(self.raw.as_ptr(), buffer, capacity, size)
        })
    }

    /// Restores `export_state`'s bytes. A blob that is truncated, of
    /// another kind, fails its checksum or holds a field outside this
    /// scaler's configuration is `ErrorCode::DataCorrupted` naming what is
    /// wrong, and changes nothing.
    pub fn import_state(&mut self, state: &[u8]) -> Result<()> {
        // SAFETY: live scaler, exclusively borrowed; `state` read during the call.
        check(unsafe {
            sys::frugal_loss_scaler_import_state(self.raw.as_ptr(), state.as_ptr() as *const c_void, state.len())
        })
    }

    /// The raw handle, still owned by `self`.
    pub fn as_ptr(&self) -> *mut sys::frugal_loss_scaler {
        self.raw.as_ptr()
    }
}

impl Drop for LossScaler {
    fn drop(&mut self) {
        // SAFETY: we own the scaler; `&mut self` excludes other calls.
        unsafe { sys::frugal_loss_scaler_destroy(self.raw.as_ptr()) }
    }
}
