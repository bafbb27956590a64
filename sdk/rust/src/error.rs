//! The frugal error as a native Rust error.
//!
//! Every fallible core call returns a `frugal_error*` (NULL on success);
//! [`check`] turns it into `Result<()>`, copying the code and message and
//! destroying the C object at once, so an [`Error`] owns no C memory and is
//! `Send + Sync` like any plain value.

use std::fmt;

use crate::strings::copy_c_str;
use crate::sys;

/// Result of every fallible call of the safe layer.
pub type Result<T> = std::result::Result<T, Error>;

/// The stable frugal error codes (frugal/types.h). A code this binding does
/// not know (from a newer core) is kept as `Other`, never rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    InvalidArgument,
    NotFound,
    AlreadyExists,
    OutOfRange,
    Unimplemented,
    Unsupported,
    AbiMismatch,
    PluginInvalid,
    Io,
    DataCorrupted,
    OutOfMemory,
    FailedPrecondition,
    DeadlineExceeded,
    Cancelled,
    Device,
    Internal,
    /// A value this binding does not name.
    Other(i32),
}

impl ErrorCode {
    /// The code for a C value.
    pub fn from_raw(code: i32) -> ErrorCode {
        match code {
            sys::FRUGAL_ERR_INVALID_ARGUMENT => ErrorCode::InvalidArgument,
            sys::FRUGAL_ERR_NOT_FOUND => ErrorCode::NotFound,
            sys::FRUGAL_ERR_ALREADY_EXISTS => ErrorCode::AlreadyExists,
            sys::FRUGAL_ERR_OUT_OF_RANGE => ErrorCode::OutOfRange,
            sys::FRUGAL_ERR_UNIMPLEMENTED => ErrorCode::Unimplemented,
            sys::FRUGAL_ERR_UNSUPPORTED => ErrorCode::Unsupported,
            sys::FRUGAL_ERR_ABI_MISMATCH => ErrorCode::AbiMismatch,
            sys::FRUGAL_ERR_PLUGIN_INVALID => ErrorCode::PluginInvalid,
            sys::FRUGAL_ERR_IO => ErrorCode::Io,
            sys::FRUGAL_ERR_DATA_CORRUPTED => ErrorCode::DataCorrupted,
            sys::FRUGAL_ERR_OUT_OF_MEMORY => ErrorCode::OutOfMemory,
            sys::FRUGAL_ERR_FAILED_PRECONDITION => ErrorCode::FailedPrecondition,
            sys::FRUGAL_ERR_DEADLINE_EXCEEDED => ErrorCode::DeadlineExceeded,
            sys::FRUGAL_ERR_CANCELLED => ErrorCode::Cancelled,
            sys::FRUGAL_ERR_DEVICE => ErrorCode::Device,
            sys::FRUGAL_ERR_INTERNAL => ErrorCode::Internal,
            other => ErrorCode::Other(other),
        }
    }

    /// The C value.
    pub fn raw(self) -> i32 {
        match self {
            ErrorCode::InvalidArgument => sys::FRUGAL_ERR_INVALID_ARGUMENT,
            ErrorCode::NotFound => sys::FRUGAL_ERR_NOT_FOUND,
            ErrorCode::AlreadyExists => sys::FRUGAL_ERR_ALREADY_EXISTS,
            ErrorCode::OutOfRange => sys::FRUGAL_ERR_OUT_OF_RANGE,
            ErrorCode::Unimplemented => sys::FRUGAL_ERR_UNIMPLEMENTED,
            ErrorCode::Unsupported => sys::FRUGAL_ERR_UNSUPPORTED,
            ErrorCode::AbiMismatch => sys::FRUGAL_ERR_ABI_MISMATCH,
            ErrorCode::PluginInvalid => sys::FRUGAL_ERR_PLUGIN_INVALID,
            ErrorCode::Io => sys::FRUGAL_ERR_IO,
            ErrorCode::DataCorrupted => sys::FRUGAL_ERR_DATA_CORRUPTED,
            ErrorCode::OutOfMemory => sys::FRUGAL_ERR_OUT_OF_MEMORY,
            ErrorCode::FailedPrecondition => sys::FRUGAL_ERR_FAILED_PRECONDITION,
            ErrorCode::DeadlineExceeded => sys::FRUGAL_ERR_DEADLINE_EXCEEDED,
            ErrorCode::Cancelled => sys::FRUGAL_ERR_CANCELLED,
            ErrorCode::Device => sys::FRUGAL_ERR_DEVICE,
            ErrorCode::Internal => sys::FRUGAL_ERR_INTERNAL,
            ErrorCode::Other(code) => code,
        }
    }

    /// The core's stable name of the code ("NOT_FOUND", ..., "UNKNOWN").
    pub fn name(self) -> String {
        // SAFETY: frugal_error_code_name returns static storage for any value.
        unsafe { copy_c_str(sys::frugal_error_code_name(self.raw())) }
    }
}

/// An error reported by libfrugal (or by this binding, with the same codes).
/// Owns copies of the code's name and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    code: ErrorCode,
    name: String,
    message: String,
}

impl Error {
    /// An error made on the Rust side, e.g. for an argument the C API
    /// cannot even receive.
    pub fn new(code: ErrorCode, message: &str) -> Error {
        Error { code, name: code.name(), message: message.to_string() }
    }

    /// Takes ownership of a non-NULL core error: copies it, then destroys it.
    ///
    /// # Safety
    /// `raw` is a live error object owned by the caller and used no more.
    pub unsafe fn from_raw(raw: *mut sys::frugal_error) -> Error {
        let code = ErrorCode::from_raw(sys::frugal_error_code(raw));
        let message = copy_c_str(sys::frugal_error_message(raw));
        sys::frugal_error_destroy(raw);
        Error { code, name: code.name(), message }
    }

    /// The frugal error code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The stable name of the code ("NOT_FOUND", ...).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The human-readable message the core wrote.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.message)
    }
}

impl std::error::Error for Error {}

/// Turns the return value of a fallible core call into a `Result`, taking
/// ownership of the error object when there is one.
///
/// Only ever pass the fresh return value of a core call: it is destroyed here.
pub(crate) fn check(raw: *mut sys::frugal_error) -> Result<()> {
    if raw.is_null() {
        Ok(())
    } else {
        // SAFETY: a non-NULL return of a fallible call is a live error that
        // the caller (this binding) owns and does not keep.
        Err(unsafe { Error::from_raw(raw) })
    }
}
