//! `Options`: typed named values configuring a strategy.

use std::ptr::{self, NonNull};

use crate::error::{check, Result};
use crate::strings::to_c_string;
use crate::sys;

/// A frugal options object, filled builder-style:
/// `opts.set_int("max_len", 8)?.set_str("algo", "ffd")?;`
/// Dropping it calls `frugal_options_destroy`. Strategies read it during
/// their create call only, so it may be dropped right after.
///
/// `Send + Sync`: options.h needs exclusive access for setters (they take
/// `&mut self`) and lets getters run concurrently.
pub struct Options {
    raw: NonNull<sys::frugal_options>,
}

// SAFETY: see the type's documentation (options.h, "Thread safety").
unsafe impl Send for Options {}
// SAFETY: only reads go through `&self`.
unsafe impl Sync for Options {}

impl Options {
    /// An empty options object.
    pub fn new() -> Result<Options> {
        let mut raw = ptr::null_mut();
        // SAFETY: `raw` is a valid out pointer.
        check(unsafe { sys::frugal_options_create(&mut raw) })?;
        Ok(Options { raw: NonNull::new(raw).expect("frugal_options_create succeeded with NULL") })
    }

    /// Sets `name` to an integer.
    pub fn set_int(&mut self, name: &str, value: i64) -> Result<&mut Options> {
        let name = to_c_string("option name", name)?;
        // SAFETY: live object, exclusive through `&mut self`; name copied.
        check(unsafe { sys::frugal_options_set_int(self.raw.as_ptr(), name.as_ptr(), value) })?;
        Ok(self)
    }

    /// Sets `name` to a double.
    pub fn set_double(&mut self, name: &str, value: f64) -> Result<&mut Options> {
        let name = to_c_string("option name", name)?;
        // SAFETY: as in set_int.
        check(unsafe { sys::frugal_options_set_double(self.raw.as_ptr(), name.as_ptr(), value) })?;
        Ok(self)
    }

    /// Sets `name` to a bool.
    pub fn set_bool(&mut self, name: &str, value: bool) -> Result<&mut Options> {
        let name = to_c_string("option name", name)?;
        // SAFETY: as in set_int.
        check(unsafe { sys::frugal_options_set_bool(self.raw.as_ptr(), name.as_ptr(), i32::from(value)) })?;
        Ok(self)
    }

    /// Sets `name` to a string (copied by the core).
    pub fn set_str(&mut self, name: &str, value: &str) -> Result<&mut Options> {
        let c_name = to_c_string("option name", name)?;
        let c_value = to_c_string(&format!("value of option '{}'", name), value)?;
        // SAFETY: as in set_int; the value is copied too.
        check(unsafe { sys::frugal_options_set_string(self.raw.as_ptr(), c_name.as_ptr(), c_value.as_ptr()) })?;
        Ok(self)
    }

    /// Number of values held.
    pub fn len(&self) -> usize {
        // SAFETY: live object; a getter.
        unsafe { sys::frugal_options_count(self.raw.as_ptr()) }
    }

    /// Whether no value is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The raw handle, still owned by `self`.
    pub fn as_ptr(&self) -> *const sys::frugal_options {
        self.raw.as_ptr()
    }
}

impl Drop for Options {
    fn drop(&mut self) {
        // SAFETY: we own the object and nothing else refers to it.
        unsafe { sys::frugal_options_destroy(self.raw.as_ptr()) }
    }
}
