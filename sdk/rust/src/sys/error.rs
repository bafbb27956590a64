//! frugal/error.h: the error object API.

use std::os::raw::c_char;

use super::types::frugal_error;

extern "C" {
    /// Returns a new error owned by the caller; never NULL. `message` is copied.
    pub fn frugal_error_create(code: i32, message: *const c_char) -> *mut frugal_error;
    /// The code of `error`, `FRUGAL_OK` for NULL.
    pub fn frugal_error_code(error: *const frugal_error) -> i32;
    /// The message, owned by `error`, valid until it is destroyed; "" for NULL.
    pub fn frugal_error_message(error: *const frugal_error) -> *const c_char;
    /// The stable name of a code ("NOT_FOUND", ...), static storage.
    pub fn frugal_error_code_name(code: i32) -> *const c_char;
    /// Frees `error`; NULL allowed; twice is UB.
    pub fn frugal_error_destroy(error: *mut frugal_error);
}
