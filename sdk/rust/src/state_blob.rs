//! The export half of every `*_export_state` function: ask for the size,
//! then fill a buffer of that size. One helper so each handle does not
//! repeat the two-call protocol.

use std::os::raw::c_void;
use std::ptr;

use crate::error::{check, Result};
use crate::sys;

/// Runs `export(buffer, capacity, size)` once to learn the size (NULL
/// buffer, capacity 0) and once to fill a `Vec` of that size.
pub(crate) fn export_blob(
    mut export: impl FnMut(*mut c_void, usize, *mut usize) -> *mut sys::frugal_error,
) -> Result<Vec<u8>> {
    let mut size = 0usize;
    check(export(ptr::null_mut(), 0, &mut size))?;
    let mut blob = vec![0u8; size];
    let mut written = 0usize;
    check(export(blob.as_mut_ptr() as *mut c_void, blob.len(), &mut written))?;
    blob.truncate(written);
    Ok(blob)
}
