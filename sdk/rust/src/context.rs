//! `Context`: a libfrugal context owning loaded plugins and the strategy
//! registry.

use std::path::Path;
use std::ptr::{self, NonNull};

use crate::error::{check, Result};
use crate::strings::{copy_c_str, to_c_string};
use crate::sys;

/// A libfrugal context. Dropping it calls `frugal_context_destroy`; objects
/// created from it (schedules, packers, plans) stay valid after that, as the
/// header promises, so they borrow nothing from it.
///
/// `Send + Sync`: context.h lets every function taking a context run on any
/// thread, serialised inside libfrugal. Destroy must not race other calls,
/// which `Drop` guarantees (it needs the only owner).
pub struct Context {
    raw: NonNull<sys::frugal_context>,
}

// SAFETY: see the type's documentation (context.h, "Thread safety").
unsafe impl Send for Context {}
// SAFETY: as above; the core serialises concurrent calls on one context.
unsafe impl Sync for Context {}

/// A loaded plugin, copied out of the context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginInfo {
    pub name: String,
    pub version: String,
    pub vendor: String,
    pub license: String,
    pub description: String,
    /// Canonical path of the file, as first loaded in this process.
    pub path: String,
    pub abi_major: u32,
    pub abi_minor: u32,
    pub strategies: Vec<StrategyInfo>,
}

/// One strategy of a loaded plugin, copied out of the context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrategyInfo {
    /// `sys::FRUGAL_KIND_*`.
    pub kind: i32,
    /// The kind's stable name ("schedule", "packer", ...).
    pub kind_name: String,
    /// `sys::FRUGAL_STRATEGY_*` bits.
    pub flags: u32,
    pub name: String,
    pub summary: String,
    pub plugin_name: String,
    /// Another plugin owns the short name: reach this one as "plugin/name".
    pub shadowed: bool,
}

/// A file that failed to load, copied out of the context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadFailure {
    pub path: String,
    pub message: String,
    /// `sys::FRUGAL_ERR_*`.
    pub code: i32,
}

impl Context {
    /// A context with no plugins loaded and the default log sink.
    pub fn new() -> Result<Context> {
        let mut raw = ptr::null_mut();
        // SAFETY: `raw` is a valid out pointer.
        check(unsafe { sys::frugal_context_create(&mut raw) })?;
        // The core never returns success without an object.
        Ok(Context { raw: NonNull::new(raw).expect("frugal_context_create succeeded with NULL") })
    }

    /// Loads the plugins of FRUGAL_PLUGIN_PATH, the built-in directory
    /// (found by libfrugal next to itself) and added directories. Files that
    /// fail are recorded (see [`Context::load_failures`]), not returned.
    /// Returns the number of plugins newly loaded.
    pub fn discover_plugins(&self) -> Result<usize> {
        self.discover_plugins_with(0)
    }

    /// As [`Context::discover_plugins`], with `sys::FRUGAL_DISCOVER_*` flags.
    pub fn discover_plugins_with(&self, flags: u32) -> Result<usize> {
        let mut loaded = 0usize;
        // SAFETY: live context; `loaded` is a valid out pointer.
        check(unsafe { sys::frugal_context_discover_plugins(self.raw.as_ptr(), flags, &mut loaded) })?;
        Ok(loaded)
    }

    /// Adds a directory scanned by later discoveries.
    pub fn add_plugin_dir(&self, dir: &Path) -> Result<()> {
        let dir = to_c_string("plugin directory", &dir.to_string_lossy())?;
        // SAFETY: live context; the path is copied by the core.
        check(unsafe { sys::frugal_context_add_plugin_dir(self.raw.as_ptr(), dir.as_ptr()) })
    }

    /// Loads one plugin file; the error names the file and the reason.
    pub fn load_plugin(&self, path: &Path) -> Result<()> {
        let path = to_c_string("plugin path", &path.to_string_lossy())?;
        // SAFETY: live context; the path is read during the call only.
        check(unsafe { sys::frugal_context_load_plugin(self.raw.as_ptr(), path.as_ptr()) })
    }

    /// Every loaded plugin with its strategies, in load order.
    pub fn plugins(&self) -> Result<Vec<PluginInfo>> {
        // SAFETY: live context.
        let count = unsafe { sys::frugal_context_plugin_count(self.raw.as_ptr()) };
        let mut plugins = Vec::with_capacity(count);
        for index in 0..count {
            plugins.push(self.plugin(index)?);
        }
        Ok(plugins)
    }

    fn plugin(&self, index: usize) -> Result<PluginInfo> {
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut info: sys::frugal_plugin_info = unsafe { std::mem::zeroed() };
        info.struct_size = std::mem::size_of::<sys::frugal_plugin_info>();
        // SAFETY: live context; `info` is caller-allocated with struct_size set.
        check(unsafe { sys::frugal_context_plugin_info(self.raw.as_ptr(), index, &mut info) })?;
        let mut strategies = Vec::with_capacity(info.strategy_count);
        for strategy in 0..info.strategy_count {
            strategies.push(self.strategy(index, strategy)?);
        }
        // SAFETY: the strings are owned by the context, alive during `&self`.
        unsafe {
            Ok(PluginInfo {
                name: copy_c_str(info.name),
                version: copy_c_str(info.version),
                vendor: copy_c_str(info.vendor),
                license: copy_c_str(info.license),
                description: copy_c_str(info.description),
                path: copy_c_str(info.path),
                abi_major: info.abi_major,
                abi_minor: info.abi_minor,
                strategies,
            })
        }
    }

    fn strategy(&self, plugin: usize, index: usize) -> Result<StrategyInfo> {
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut info: sys::frugal_strategy_info = unsafe { std::mem::zeroed() };
        info.struct_size = std::mem::size_of::<sys::frugal_strategy_info>();
        // SAFETY: live context; `info` is caller-allocated with struct_size set.
        check(unsafe { sys::frugal_context_strategy_info(self.raw.as_ptr(), plugin, index, &mut info) })?;
        // SAFETY: strings owned by the context (or static), alive during `&self`.
        unsafe {
            Ok(StrategyInfo {
                kind: info.kind,
                kind_name: copy_c_str(sys::frugal_strategy_kind_name(info.kind)),
                flags: info.flags,
                name: copy_c_str(info.name),
                summary: copy_c_str(info.summary),
                plugin_name: copy_c_str(info.plugin_name),
                shadowed: info.shadowed != 0,
            })
        }
    }

    /// Every recorded load failure, oldest first.
    pub fn load_failures(&self) -> Result<Vec<LoadFailure>> {
        // SAFETY: live context.
        let count = unsafe { sys::frugal_context_load_failure_count(self.raw.as_ptr()) };
        let mut failures = Vec::with_capacity(count);
        for index in 0..count {
            // SAFETY: all-zero is a valid value of this plain C struct.
            let mut info: sys::frugal_load_failure_info = unsafe { std::mem::zeroed() };
            info.struct_size = std::mem::size_of::<sys::frugal_load_failure_info>();
            // SAFETY: live context; caller-allocated info with struct_size set.
            check(unsafe { sys::frugal_context_load_failure(self.raw.as_ptr(), index, &mut info) })?;
            // SAFETY: strings owned by the context, alive during `&self`.
            failures.push(unsafe {
                LoadFailure { path: copy_c_str(info.path), message: copy_c_str(info.message), code: info.code }
            });
        }
        Ok(failures)
    }

    /// The raw handle, still owned by `self`; for calls the safe layer lacks.
    pub fn as_ptr(&self) -> *mut sys::frugal_context {
        self.raw.as_ptr()
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: we own the context; `&mut self` excludes concurrent calls.
        unsafe { sys::frugal_context_destroy(self.raw.as_ptr()) }
    }
}
