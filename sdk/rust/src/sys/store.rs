//! frugal/store.h: storage backend objects. Calls on different keys may run
//! concurrently; calls on one key are serialised by the caller.

use std::os::raw::{c_char, c_void};

use super::types::{frugal_context, frugal_error, frugal_options};

/// Longest store key in bytes (frugal/store_vtable.h).
pub const FRUGAL_STORE_KEY_MAX: i32 = 1024;

/// Receives one key during a listing; `key` valid during the call only.
/// Return nonzero to stop early.
pub type frugal_store_list_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, key: *const c_char, size: u64) -> i32>;

/// Opaque open store; kept open by engines created on it.
#[repr(C)]
pub struct frugal_store {
    _opaque: [u8; 0],
}

extern "C" {
    /// `options` read during the call; `*out` released with `frugal_store_destroy`.
    pub fn frugal_store_create(
        context: *mut frugal_context,
        name: *const c_char,
        options: *const frugal_options,
        out: *mut *mut frugal_store,
    ) -> *mut frugal_error;
    /// NULL allowed; engines keep the store open until destroyed.
    pub fn frugal_store_destroy(store: *mut frugal_store);
    pub fn frugal_store_put(store: *mut frugal_store, key: *const c_char, data: *const c_void, size: usize)
        -> *mut frugal_error;
    pub fn frugal_store_size(store: *mut frugal_store, key: *const c_char, size: *mut u64) -> *mut frugal_error;
    pub fn frugal_store_read(
        store: *mut frugal_store,
        key: *const c_char,
        offset: u64,
        dst: *mut c_void,
        length: usize,
    ) -> *mut frugal_error;
    pub fn frugal_store_list(
        store: *mut frugal_store,
        prefix: *const c_char,
        fn_: frugal_store_list_fn,
        user_data: *mut c_void,
    ) -> *mut frugal_error;
    pub fn frugal_store_remove(store: *mut frugal_store, key: *const c_char) -> *mut frugal_error;
    pub fn frugal_store_check_key(key: *const c_char) -> *mut frugal_error;
}
