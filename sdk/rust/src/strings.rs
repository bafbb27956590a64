//! Conversions between Rust strings and the C strings the ABI takes and
//! returns. Strings coming back from the core are copied at once, because
//! their lifetimes are tied to objects (a context, an error) that the safe
//! layer may free before the caller is done with the text.

use std::ffi::{CStr, CString};
use std::os::raw::c_char;

use crate::error::{Error, ErrorCode, Result};

/// Copies a NUL-terminated string owned by the core; NULL becomes "".
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string valid for the call.
pub(crate) unsafe fn copy_c_str(ptr: *const c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    CStr::from_ptr(ptr).to_string_lossy().into_owned()
}

/// Makes a C string from `value`; `what` names the argument in the error
/// a value with an interior NUL gets (the C side would silently cut it).
pub(crate) fn to_c_string(what: &str, value: &str) -> Result<CString> {
    CString::new(value).map_err(|_| {
        Error::new(
            ErrorCode::InvalidArgument,
            &format!("{} '{}' contains a NUL byte", what, value.replace('\0', "\\0")),
        )
    })
}
