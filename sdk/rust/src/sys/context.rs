//! frugal/context.h: runtime version, contexts, plugin loading and
//! introspection.
//!
//! Every function taking a context may be called from any thread (calls on
//! one context are serialised inside libfrugal), except
//! `frugal_context_destroy`, which must not race any other call.

use std::os::raw::{c_char, c_void};

use super::types::{frugal_context, frugal_error};

/// Discovery flag: do not read FRUGAL_PLUGIN_PATH.
pub const FRUGAL_DISCOVER_NO_ENV: u32 = 1 << 0;
/// Discovery flag: skip the built-in plugin directory.
pub const FRUGAL_DISCOVER_NO_BUILTIN: u32 = 1 << 1;

/// Log sink; may be called from any thread, must not call back into the context.
pub type frugal_log_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, level: i32, source: *const c_char, message: *const c_char)>;

/// One loaded plugin. Caller-allocated with `struct_size` set; strings are
/// owned by the context and valid until it is destroyed.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_plugin_info {
    pub struct_size: usize,
    pub name: *const c_char,
    pub version: *const c_char,
    pub vendor: *const c_char,
    pub license: *const c_char,
    pub description: *const c_char,
    pub path: *const c_char,
    pub abi_major: u32,
    pub abi_minor: u32,
    pub strategy_count: usize,
}

/// One strategy of a loaded plugin. Caller-allocated; strings owned by the context.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_strategy_info {
    pub struct_size: usize,
    pub kind: i32,
    pub flags: u32,
    pub name: *const c_char,
    pub summary: *const c_char,
    pub plugin_name: *const c_char,
    pub shadowed: i32,
    pub reserved: i32,
    /// Options the strategy declares.
    pub option_count: usize,
}

/// `frugal_option_info.flags` (frugal/plugin.h): the option must be given.
pub const FRUGAL_OPTION_DECL_REQUIRED: u32 = 1 << 0;
/// `frugal_option_info.flags`: `min` is an inclusive lower bound.
pub const FRUGAL_OPTION_DECL_HAS_MIN: u32 = 1 << 1;
/// `frugal_option_info.flags`: `max` is an inclusive upper bound.
pub const FRUGAL_OPTION_DECL_HAS_MAX: u32 = 1 << 2;
/// `frugal_option_info.flags`: a STRING naming a directory the strategy may create and write.
pub const FRUGAL_OPTION_DECL_DIRECTORY: u32 = 1 << 3;

/// One option a strategy declares. Caller-allocated with
/// `struct_size` set; strings are owned by the context and valid until it
/// is destroyed.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_option_info {
    pub struct_size: usize,
    pub name: *const c_char,
    /// `FRUGAL_OPTION_*`.
    pub type_: i32,
    /// `FRUGAL_OPTION_DECL_*` bits.
    pub flags: u32,
    /// Text as `frugal_options_set_parsed` reads it; NULL when none.
    pub default_value: *const c_char,
    /// Meaningful with `FRUGAL_OPTION_DECL_HAS_MIN`, else 0.
    pub min: f64,
    /// Meaningful with `FRUGAL_OPTION_DECL_HAS_MAX`, else 0.
    pub max: f64,
    /// Allowed STRING values separated by '|'; NULL for any.
    pub choices: *const c_char,
    /// One line; never NULL.
    pub doc: *const c_char,
}

/// A file that failed to load. Caller-allocated; strings owned by the context.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct frugal_load_failure_info {
    pub struct_size: usize,
    pub path: *const c_char,
    pub message: *const c_char,
    pub code: i32,
    pub reserved: i32,
}

extern "C" {
    pub fn frugal_abi_version() -> u32;
    /// Static storage.
    pub fn frugal_version_string() -> *const c_char;
    pub fn frugal_cuda_device_count() -> i32;
    pub fn frugal_built_with_cuda() -> i32;

    /// `*out` is owned by the caller; free with `frugal_context_destroy`.
    pub fn frugal_context_create(out: *mut *mut frugal_context) -> *mut frugal_error;
    /// NULL allowed; strategy objects made from the context stay valid.
    pub fn frugal_context_destroy(context: *mut frugal_context);
    /// `user_data` must outlive every plugin this context loaded first.
    pub fn frugal_context_set_log_callback(
        context: *mut frugal_context,
        callback: frugal_log_fn,
        user_data: *mut c_void,
        min_level: i32,
    ) -> *mut frugal_error;
    pub fn frugal_context_add_plugin_dir(context: *mut frugal_context, path: *const c_char) -> *mut frugal_error;
    /// `loaded` may be NULL.
    pub fn frugal_context_discover_plugins(
        context: *mut frugal_context,
        flags: u32,
        loaded: *mut usize,
    ) -> *mut frugal_error;
    pub fn frugal_context_load_plugin(context: *mut frugal_context, path: *const c_char) -> *mut frugal_error;

    pub fn frugal_context_plugin_count(context: *const frugal_context) -> usize;
    pub fn frugal_context_plugin_info(
        context: *const frugal_context,
        index: usize,
        info: *mut frugal_plugin_info,
    ) -> *mut frugal_error;
    pub fn frugal_context_strategy_info(
        context: *const frugal_context,
        plugin_index: usize,
        strategy_index: usize,
        info: *mut frugal_strategy_info,
    ) -> *mut frugal_error;
    /// `FRUGAL_ERR_OUT_OF_RANGE` for any index too large.
    pub fn frugal_context_strategy_option(
        context: *const frugal_context,
        plugin_index: usize,
        strategy_index: usize,
        option_index: usize,
        info: *mut frugal_option_info,
    ) -> *mut frugal_error;
    pub fn frugal_context_load_failure_count(context: *const frugal_context) -> usize;
    pub fn frugal_context_load_failure(
        context: *const frugal_context,
        index: usize,
        info: *mut frugal_load_failure_info,
    ) -> *mut frugal_error;
    pub fn frugal_context_find_strategy(
        context: *const frugal_context,
        kind: i32,
        name: *const c_char,
        info: *mut frugal_strategy_info,
    ) -> *mut frugal_error;
    /// Static storage ("schedule", ..., "unknown").
    pub fn frugal_strategy_kind_name(kind: i32) -> *const c_char;
}
