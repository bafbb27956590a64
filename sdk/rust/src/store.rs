//! `Store`: an open storage backend (frugal/store.h), e.g. "fs" with
//! option `root`. Checkpoint engines write through it.

use std::ffi::CStr;
use std::os::raw::{c_char, c_void};
use std::ptr::{self, NonNull};

use crate::context::Context;
use crate::error::{check, Result};
use crate::options::Options;
use crate::strings::to_c_string;
use crate::sys;

/// An open store. Dropping it calls `frugal_store_destroy`; engines created
/// on it keep the backend open until they are dropped, so they do not
/// borrow it.
///
/// `Send` but not `Sync`: store.h lets calls on different keys run
/// concurrently but leaves serialising calls on one key to the caller,
/// which the type system cannot check.
pub struct Store {
    raw: NonNull<sys::frugal_store>,
}

// SAFETY: a store may be used from any thread (store.h).
unsafe impl Send for Store {}

/// Appends each listed key to the `Vec<(String, u64)>` behind `user_data`.
unsafe extern "C" fn collect_key(user_data: *mut c_void, key: *const c_char, size: u64) -> i32 {
    let keys = &mut *(user_data as *mut Vec<(String, u64)>);
    keys.push((CStr::from_ptr(key).to_string_lossy().into_owned(), size));
    0
}

impl Store {
    /// Creates a store of strategy `name` ("fs") with its options (for "fs":
    /// `root`, required; `fsync`, default true), read during the call.
    pub fn new(context: &Context, name: &str, options: Option<&Options>) -> Result<Store> {
        let name = to_c_string("store name", name)?;
        let options = options.map_or(ptr::null(), |o| o.as_ptr());
        let mut raw = ptr::null_mut();
        // SAFETY: live context; name and options outlive the call.
        check(unsafe { sys::frugal_store_create(context.as_ptr(), name.as_ptr(), options, &mut raw) })?;
        Ok(Store { raw: NonNull::new(raw).expect("frugal_store_create succeeded with NULL") })
    }

    /// Checks `key` against the store key rules (1..1024 bytes of
    /// '/'-separated components, each 1..255 bytes of `[A-Za-z0-9_.-]`
    /// not starting with '.'); `ErrorCode::InvalidArgument` names the
    /// offending component. Needs no store; thread-safe.
    pub fn check_key(key: &str) -> Result<()> {
        let key = to_c_string("store key", key)?;
        // SAFETY: a NUL-terminated key read during the call.
        check(unsafe { sys::frugal_store_check_key(key.as_ptr()) })
    }

    /// Atomically and durably writes object `key`.
    pub fn put(&self, key: &str, data: &[u8]) -> Result<()> {
        let key = to_c_string("store key", key)?;
        // SAFETY: live store; key and data read during the call.
        check(unsafe { sys::frugal_store_put(self.raw.as_ptr(), key.as_ptr(), data.as_ptr() as *const c_void, data.len()) })
    }

    /// The size of object `key`; `ErrorCode::NotFound` when absent.
    pub fn size(&self, key: &str) -> Result<u64> {
        let key = to_c_string("store key", key)?;
        let mut size = 0u64;
        // SAFETY: live store; valid out pointer.
        check(unsafe { sys::frugal_store_size(self.raw.as_ptr(), key.as_ptr(), &mut size) })?;
        Ok(size)
    }

    /// Reads `dst.len()` bytes of object `key` from `offset`.
    pub fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<()> {
        let key = to_c_string("store key", key)?;
        // SAFETY: live store; `dst` is exclusively borrowed for the call.
        check(unsafe {
            sys::frugal_store_read(self.raw.as_ptr(), key.as_ptr(), offset, dst.as_mut_ptr() as *mut c_void, dst.len())
        })
    }

    /// The whole object `key`.
    pub fn read(&self, key: &str) -> Result<Vec<u8>> {
        let mut data = vec![0u8; self.size(key)? as usize];
        self.read_into(key, 0, &mut data)?;
        Ok(data)
    }

    /// Every object whose key starts with `prefix` ("" for all), in key
    /// order, with its size.
    pub fn list(&self, prefix: &str) -> Result<Vec<(String, u64)>> {
        let prefix = to_c_string("store prefix", prefix)?;
        let mut keys: Vec<(String, u64)> = Vec::new();
        // SAFETY: live store; the callback only appends to `keys`, which
        // outlives the call, and never unwinds.
        check(unsafe {
            sys::frugal_store_list(self.raw.as_ptr(), prefix.as_ptr(), Some(collect_key), &mut keys as *mut _ as *mut c_void)
        })?;
        Ok(keys)
    }

    /// Removes object `key`; an absent key is not an error.
    pub fn remove(&self, key: &str) -> Result<()> {
        let key = to_c_string("store key", key)?;
        // SAFETY: live store; key read during the call.
        check(unsafe { sys::frugal_store_remove(self.raw.as_ptr(), key.as_ptr()) })
    }

    /// The raw handle, still owned by `self`.
    pub fn as_ptr(&self) -> *mut sys::frugal_store {
        self.raw.as_ptr()
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        // SAFETY: we own this handle; engines hold their own reference.
        unsafe { sys::frugal_store_destroy(self.raw.as_ptr()) }
    }
}
