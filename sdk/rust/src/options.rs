//! `Options`: typed named values configuring a strategy.

use std::os::raw::c_char;
use std::ptr::{self, NonNull};

use crate::comm::Comm;
use crate::error::{check, Result};
use crate::strings::{copy_c_str, to_c_string};
use crate::sys;

/// The type of an option value (frugal/types.h `frugal_option_type_values`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OptionType {
    Int,
    Double,
    Bool,
    String,
    /// A communicator, held by reference ([`Options::set_comm`]; ABI 2.1).
    Comm,
    /// A value this binding does not name (from a newer core).
    Other(i32),
}

impl OptionType {
    /// The type of a C value; `None` for 0 (absent).
    pub fn from_raw(raw: i32) -> Option<OptionType> {
        match raw {
            0 => None,
            sys::FRUGAL_OPTION_INT => Some(OptionType::Int),
            sys::FRUGAL_OPTION_DOUBLE => Some(OptionType::Double),
            sys::FRUGAL_OPTION_BOOL => Some(OptionType::Bool),
            sys::FRUGAL_OPTION_STRING => Some(OptionType::String),
            sys::FRUGAL_OPTION_COMM => Some(OptionType::Comm),
            other => Some(OptionType::Other(other)),
        }
    }

    /// The C value (`sys::FRUGAL_OPTION_*`).
    pub fn raw(self) -> i32 {
        match self {
            OptionType::Int => sys::FRUGAL_OPTION_INT,
            OptionType::Double => sys::FRUGAL_OPTION_DOUBLE,
            OptionType::Bool => sys::FRUGAL_OPTION_BOOL,
            OptionType::String => sys::FRUGAL_OPTION_STRING,
            OptionType::Comm => sys::FRUGAL_OPTION_COMM,
            OptionType::Other(raw) => raw,
        }
    }
}

/// A frugal options object, filled builder-style:
/// `opts.set_int("max_len", 8)?.set_string("algo", "ffd")?;`
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
    pub fn set_string(&mut self, name: &str, value: &str) -> Result<&mut Options> {
        let c_name = to_c_string("option name", name)?;
        let c_value = to_c_string(&format!("value of option '{}'", name), value)?;
        // SAFETY: as in set_int; the value is copied too.
        check(unsafe { sys::frugal_options_set_string(self.raw.as_ptr(), c_name.as_ptr(), c_value.as_ptr()) })?;
        Ok(self)
    }

    /// Sets `name` to a reference to `comm` (`OptionType::Comm`), the way a
    /// host hands a communicator to a strategy (a router's expert-parallel
    /// group, comm_nccl's MPI bootstrap). The options, their copies and
    /// every strategy created with them keep the comm alive, so `comm` may
    /// be dropped before them; there is no getter in the safe layer, since
    /// the core hands out only a borrowed handle.
    pub fn set_comm(&mut self, name: &str, comm: &Comm) -> Result<&mut Options> {
        let name = to_c_string("option name", name)?;
        // SAFETY: as in set_int; the core takes its own reference to the
        // live comm, which `&Comm` only lends for the call.
        check(unsafe { sys::frugal_options_set_comm(self.raw.as_ptr(), name.as_ptr(), comm.as_ptr()) })?;
        Ok(self)
    }

    /// Sets `name` from `text` as a command line or config file spells it,
    /// independent of the locale: exactly "true"/"false" is a bool, a
    /// decimal integer that fits i64 an int, any other decimal or exponent
    /// number (also "inf", "nan") a double, anything else a string.
    pub fn set_parsed(&mut self, name: &str, text: &str) -> Result<&mut Options> {
        let c_name = to_c_string("option name", name)?;
        let c_text = to_c_string(&format!("text of option '{}'", name), text)?;
        // SAFETY: as in set_int; the text is read during the call.
        check(unsafe { sys::frugal_options_set_parsed(self.raw.as_ptr(), c_name.as_ptr(), c_text.as_ptr()) })?;
        Ok(self)
    }

    /// Reads `name` as an integer; `default` when it is absent. Another
    /// type is `ErrorCode::InvalidArgument` naming the option and both types.
    pub fn get_int(&self, name: &str, default: i64) -> Result<i64> {
        let name = to_c_string("option name", name)?;
        let mut out = 0i64;
        // SAFETY: live object; getters may run concurrently; valid out pointer.
        check(unsafe { sys::frugal_options_get_int(self.raw.as_ptr(), name.as_ptr(), default, &mut out) })?;
        Ok(out)
    }

    /// Reads `name` as a double (an int converts); `default` when absent.
    pub fn get_double(&self, name: &str, default: f64) -> Result<f64> {
        let name = to_c_string("option name", name)?;
        let mut out = 0f64;
        // SAFETY: as in get_int.
        check(unsafe { sys::frugal_options_get_double(self.raw.as_ptr(), name.as_ptr(), default, &mut out) })?;
        Ok(out)
    }

    /// Reads `name` as a bool; `default` when absent.
    pub fn get_bool(&self, name: &str, default: bool) -> Result<bool> {
        let name = to_c_string("option name", name)?;
        let mut out = 0i32;
        // SAFETY: as in get_int.
        check(unsafe { sys::frugal_options_get_bool(self.raw.as_ptr(), name.as_ptr(), i32::from(default), &mut out) })?;
        Ok(out != 0)
    }

    /// Reads `name` as a string (copied out); `None` when it is absent.
    pub fn get_string(&self, name: &str) -> Result<Option<String>> {
        let name = to_c_string("option name", name)?;
        let mut out: *const c_char = ptr::null();
        // SAFETY: as in get_int; a NULL default comes back as NULL when absent.
        check(unsafe { sys::frugal_options_get_string(self.raw.as_ptr(), name.as_ptr(), ptr::null(), &mut out) })?;
        // SAFETY: owned by the options, unchanged while `&self` is held.
        Ok(if out.is_null() { None } else { Some(unsafe { copy_c_str(out) }) })
    }

    /// The type of `name`, or `None` when it is absent.
    pub fn value_type(&self, name: &str) -> Option<OptionType> {
        // A name with a NUL cannot have been set.
        let name = to_c_string("option name", name).ok()?;
        // SAFETY: live object; never fails.
        OptionType::from_raw(unsafe { sys::frugal_options_type(self.raw.as_ptr(), name.as_ptr()) })
    }

    /// The name and type of entry `index` (insertion order);
    /// `ErrorCode::OutOfRange` when `index >= len()`.
    pub fn entry(&self, index: usize) -> Result<(String, OptionType)> {
        let mut name: *const c_char = ptr::null();
        let mut type_ = 0i32;
        // SAFETY: live object; valid out pointers.
        check(unsafe { sys::frugal_options_entry(self.raw.as_ptr(), index, &mut name, &mut type_) })?;
        // SAFETY: the name is owned by the options, alive during `&self`.
        let name = unsafe { copy_c_str(name) };
        Ok((name, OptionType::from_raw(type_).unwrap_or(OptionType::Other(0))))
    }

    /// Every entry's name and type, in insertion order.
    pub fn entries(&self) -> Result<Vec<(String, OptionType)>> {
        (0..self.len()).map(|i| self.entry(i)).collect()
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
