//! frugal/loss_scaler.h: dynamic loss scaling. Not thread-safe: the caller
//! serialises calls on one scaler.

use std::os::raw::c_void;

use super::types::{frugal_error, frugal_options};

/// A scaler's state; caller sets struct_size.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_loss_scaler_status {
    pub struct_size: usize,
    pub scale: f64,
    pub clean_steps: i64,
    pub skipped_steps: i64,
}

/// Opaque loss scaler; owned by its creator.
#[repr(C)]
pub struct frugal_loss_scaler {
    _opaque: [u8; 0],
}

extern "C" {
    /// `options` may be NULL; `*out` owned by the caller.
    pub fn frugal_loss_scaler_create(options: *const frugal_options, out: *mut *mut frugal_loss_scaler)
        -> *mut frugal_error;
    pub fn frugal_loss_scaler_scale(scaler: *const frugal_loss_scaler) -> f64;
    /// `apply_step` may be NULL.
    pub fn frugal_loss_scaler_update(scaler: *mut frugal_loss_scaler, found_inf: i32, apply_step: *mut i32)
        -> *mut frugal_error;
    pub fn frugal_loss_scaler_get_status(scaler: *const frugal_loss_scaler, out: *mut frugal_loss_scaler_status)
        -> *mut frugal_error;
    pub fn frugal_loss_scaler_set_status(
        scaler: *mut frugal_loss_scaler,
        state: *const frugal_loss_scaler_status,
    ) -> *mut frugal_error;
    /// The state as a versioned, checksummed blob; `buffer` NULL queries the size.
    pub fn frugal_loss_scaler_export_state(
        scaler: *const frugal_loss_scaler,
        buffer: *mut c_void,
        capacity: usize,
        size: *mut usize,
    ) -> *mut frugal_error;
    /// Restores a blob of `frugal_loss_scaler_export_state`.
    pub fn frugal_loss_scaler_import_state(scaler: *mut frugal_loss_scaler, data: *const c_void, size: usize)
        -> *mut frugal_error;
    /// NULL allowed.
    pub fn frugal_loss_scaler_destroy(scaler: *mut frugal_loss_scaler);
}
