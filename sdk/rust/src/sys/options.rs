//! frugal/options.h: typed named values configuring strategies.
//!
//! Setters and destroy need exclusive access; getters may run concurrently.
//! Strings returned by getters are owned by the options object and valid
//! until that name is set again or the object is destroyed.

use std::os::raw::c_char;

use super::types::{frugal_comm, frugal_error, frugal_options};

extern "C" {
    /// `*out` is owned by the caller; free with `frugal_options_destroy`.
    pub fn frugal_options_create(out: *mut *mut frugal_options) -> *mut frugal_error;
    /// NULL allowed.
    pub fn frugal_options_destroy(options: *mut frugal_options);

    pub fn frugal_options_set_int(options: *mut frugal_options, name: *const c_char, value: i64) -> *mut frugal_error;
    pub fn frugal_options_set_double(options: *mut frugal_options, name: *const c_char, value: f64)
        -> *mut frugal_error;
    pub fn frugal_options_set_bool(options: *mut frugal_options, name: *const c_char, value: i32) -> *mut frugal_error;
    /// `value` is copied.
    pub fn frugal_options_set_string(
        options: *mut frugal_options,
        name: *const c_char,
        value: *const c_char,
    ) -> *mut frugal_error;
    /// Holds a reference to `comm` (not NULL): it stays alive while this
    /// value, a copy of the options or a strategy created with them holds
    /// it, even after `frugal_comm_destroy` (ABI 2.1).
    pub fn frugal_options_set_comm(options: *mut frugal_options, name: *const c_char, comm: *mut frugal_comm)
        -> *mut frugal_error;
    pub fn frugal_options_set_parsed(
        options: *mut frugal_options,
        name: *const c_char,
        text: *const c_char,
    ) -> *mut frugal_error;

    /// 0 when absent. Never fails.
    pub fn frugal_options_type(options: *const frugal_options, name: *const c_char) -> i32;
    pub fn frugal_options_count(options: *const frugal_options) -> usize;
    pub fn frugal_options_entry(
        options: *const frugal_options,
        index: usize,
        name: *mut *const c_char,
        type_: *mut i32,
    ) -> *mut frugal_error;
    pub fn frugal_options_get_int(
        options: *const frugal_options,
        name: *const c_char,
        default_value: i64,
        out: *mut i64,
    ) -> *mut frugal_error;
    pub fn frugal_options_get_double(
        options: *const frugal_options,
        name: *const c_char,
        default_value: f64,
        out: *mut f64,
    ) -> *mut frugal_error;
    pub fn frugal_options_get_bool(
        options: *const frugal_options,
        name: *const c_char,
        default_value: i32,
        out: *mut i32,
    ) -> *mut frugal_error;
    pub fn frugal_options_get_string(
        options: *const frugal_options,
        name: *const c_char,
        default_value: *const c_char,
        out: *mut *const c_char,
    ) -> *mut frugal_error;
    /// Absent: `*out` is NULL. `*out` is borrowed, valid while `options`
    /// holds the value; never destroy it (ABI 2.1).
    pub fn frugal_options_get_comm(
        options: *const frugal_options,
        name: *const c_char,
        out: *mut *mut frugal_comm,
    ) -> *mut frugal_error;
}
