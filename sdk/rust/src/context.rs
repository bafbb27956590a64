//! `Context`: a libfrugal context owning loaded plugins and the strategy
//! registry.

use std::ffi::CStr;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::ptr::{self, NonNull};
use std::sync::{Mutex, RwLock};

use crate::error::{check, Error, ErrorCode, Result};
use crate::options::OptionType;
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
    /// The installed log callback's slot, if any.
    log_slot: Mutex<Option<&'static LogSlot>>,
}

// SAFETY: see the type's documentation (context.h, "Thread safety").
unsafe impl Send for Context {}
// SAFETY: as above; the core serialises concurrent calls on one context.
unsafe impl Sync for Context {}

/// A loaded plugin, copied out of the context.
#[derive(Debug, Clone, PartialEq)]
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
#[derive(Debug, Clone, PartialEq)]
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
    /// The options it declares, in declaration order; empty when
    /// it declares none.
    pub options: Vec<OptionDecl>,
}

/// One option a strategy declares, copied out of the context.
///
/// The declaration describes what the strategy's create accepts on its
/// own; constraints between options (`min_lr <= lr`) are not declared.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionDecl {
    pub name: String,
    /// The type a value must have (a DOUBLE option also accepts an INT).
    pub value_type: OptionType,
    /// The option must be given; then it has no default.
    pub required: bool,
    /// The value used when the option is absent, spelt as
    /// [`Options::set_parsed`](crate::Options::set_parsed) reads it ("0.001").
    pub default: Option<String>,
    /// Inclusive lower bound (INT and DOUBLE options).
    pub min: Option<f64>,
    /// Inclusive upper bound (INT and DOUBLE options).
    pub max: Option<f64>,
    /// The values a STRING option allows; `None` for any.
    pub choices: Option<Vec<String>>,
    /// A STRING naming a directory the strategy may create and write.
    pub directory: bool,
    /// One line of documentation.
    pub doc: String,
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
        Ok(Context {
            raw: NonNull::new(raw).expect("frugal_context_create succeeded with NULL"),
            log_slot: Mutex::new(None),
        })
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
        let info = self.raw_strategy(plugin, index)?;
        let options = self.declared_options(plugin, index, info.option_count)?;
        // SAFETY: strings owned by the context, alive during `&self`.
        Ok(unsafe { strategy_of(&info, options) })
    }

    fn raw_strategy(&self, plugin: usize, index: usize) -> Result<sys::frugal_strategy_info> {
        let mut info = zeroed_strategy_info();
        // SAFETY: live context; `info` is caller-allocated with struct_size set.
        check(unsafe { sys::frugal_context_strategy_info(self.raw.as_ptr(), plugin, index, &mut info) })?;
        Ok(info)
    }

    /// The `count` declarations of strategy `index` of plugin `plugin`,
    /// copied at once: their strings die with the context.
    fn declared_options(&self, plugin: usize, index: usize, count: usize) -> Result<Vec<OptionDecl>> {
        let mut options = Vec::with_capacity(count);
        for option in 0..count {
            // SAFETY: all-zero is a valid value of this plain C struct.
            let mut info: sys::frugal_option_info = unsafe { std::mem::zeroed() };
            info.struct_size = std::mem::size_of::<sys::frugal_option_info>();
            // SAFETY: live context; `info` is caller-allocated with struct_size set.
            check(unsafe { sys::frugal_context_strategy_option(self.raw.as_ptr(), plugin, index, option, &mut info) })?;
            // SAFETY: strings owned by the context, alive during `&self`.
            options.push(unsafe { option_of(&info) });
        }
        Ok(options)
    }

    /// The declarations of a strategy `find_strategy` described. The core
    /// reports no indices for it, so its plugin is found by name (unique in
    /// a context) and the strategy by kind and name within it.
    fn options_of_found(&self, found: &sys::frugal_strategy_info) -> Result<Vec<OptionDecl>> {
        if found.option_count == 0 {
            return Ok(Vec::new());
        }
        // SAFETY: strings owned by the context, alive during `&self`.
        let (plugin_name, name) = unsafe { (CStr::from_ptr(found.plugin_name), CStr::from_ptr(found.name)) };
        // SAFETY: live context.
        let count = unsafe { sys::frugal_context_plugin_count(self.raw.as_ptr()) };
        for plugin in 0..count {
            // SAFETY: all-zero is a valid value of this plain C struct.
            let mut info: sys::frugal_plugin_info = unsafe { std::mem::zeroed() };
            info.struct_size = std::mem::size_of::<sys::frugal_plugin_info>();
            // SAFETY: live context; `info` is caller-allocated with struct_size set.
            check(unsafe { sys::frugal_context_plugin_info(self.raw.as_ptr(), plugin, &mut info) })?;
            // SAFETY: as above.
            if unsafe { CStr::from_ptr(info.name) } != plugin_name {
                continue;
            }
            for index in 0..info.strategy_count {
                let strategy = self.raw_strategy(plugin, index)?;
                // SAFETY: as above.
                if strategy.kind == found.kind && unsafe { CStr::from_ptr(strategy.name) } == name {
                    return self.declared_options(plugin, index, strategy.option_count);
                }
            }
        }
        // Plugins never leave a context, so what find_strategy found is listed.
        Err(Error::new(
            ErrorCode::Internal,
            &format!(
                "strategy '{}' of plugin '{}' was found but is not among the loaded plugins' strategies",
                name.to_string_lossy(),
                plugin_name.to_string_lossy()
            ),
        ))
    }

    /// Looks a strategy up by kind (`sys::FRUGAL_KIND_*`) and name ("name"
    /// or "plugin/name"). `ErrorCode::NotFound` names the kind and the
    /// name and, for a short name, lists the available ones.
    pub fn find_strategy(&self, kind: i32, name: &str) -> Result<StrategyInfo> {
        let name = to_c_string("strategy name", name)?;
        let mut info = zeroed_strategy_info();
        // SAFETY: live context; `info` is caller-allocated with struct_size set.
        check(unsafe { sys::frugal_context_find_strategy(self.raw.as_ptr(), kind, name.as_ptr(), &mut info) })?;
        let options = self.options_of_found(&info)?;
        // SAFETY: strings owned by the context, alive during `&self`.
        Ok(unsafe { strategy_of(&info, options) })
    }

    /// The options strategy `name` ("name" or "plugin/name") of `kind`
    /// declares, in declaration order; empty when it declares none.
    /// `ErrorCode::NotFound` as [`Context::find_strategy`].
    pub fn strategy_options(&self, kind: i32, name: &str) -> Result<Vec<OptionDecl>> {
        Ok(self.find_strategy(kind, name)?.options)
    }

    /// Installs `callback` as the log sink of this context and of every
    /// plugin it loads (plugins already loaded switch too), for messages at
    /// `min_level` or above. It receives the level, the source ("core",
    /// the plugin name, or its file path while the name is unknown) and
    /// the message.
    ///
    /// The callback may run on any thread that calls into frugal, several
    /// at once, possibly while the context's lock is held: it must be
    /// `Send + Sync` and must not call back into this context. A panic in
    /// it is caught at the FFI boundary and the message dropped.
    ///
    /// Ownership: the context owns the closure and drops it when it is
    /// replaced or when the context is dropped (after any call running it
    /// has returned). Plugins can outlive the context (objects made from
    /// it keep them loaded) and keep logging to this sink; a small slot
    /// that outlives the closure (never freed, a few words per
    /// installation) lets such late messages find no closure and be
    /// dropped instead of reaching freed memory.
    pub fn set_log_callback<F>(&self, min_level: LogLevel, callback: F) -> Result<()>
    where
        F: Fn(LogLevel, &str, &str) + Send + Sync + 'static,
    {
        let slot: &'static LogSlot = Box::leak(Box::new(LogSlot { callback: RwLock::new(Some(Box::new(callback))) }));
        let user_data = slot as *const LogSlot as *mut c_void;
        // Held across the C call, so concurrent installs leave the core and
        // `log_slot` agreeing on the last one.
        let mut current = self.log_slot.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: live context; `user_data` points to a slot that is never
        // freed, as the header requires of it; the trampoline matches frugal_log_fn.
        let installed = check(unsafe {
            sys::frugal_context_set_log_callback(self.raw.as_ptr(), Some(log_trampoline), user_data, min_level.raw())
        });
        let retired = match installed {
            Ok(()) => current.replace(slot),
            // Not installed: the core never saw the new slot.
            Err(_) => Some(slot),
        };
        drop(current);
        if let Some(retired) = retired {
            retired.clear();
        }
        installed
    }

    /// Silences logging of this context and its plugins (the core has no
    /// way back to its default stderr sink, short of a new context), and
    /// drops an installed callback.
    pub fn silence_log(&self) -> Result<()> {
        let mut current = self.log_slot.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: live context; a NULL callback never reads user_data.
        check(unsafe { sys::frugal_context_set_log_callback(self.raw.as_ptr(), None, ptr::null_mut(), sys::FRUGAL_LOG_OFF) })?;
        let retired = current.take();
        drop(current);
        if let Some(retired) = retired {
            retired.clear();
        }
        Ok(())
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
        // Plugins still loaded by other objects may log after this; they
        // find the slot empty.
        if let Some(slot) = self.log_slot.get_mut().unwrap_or_else(|e| e.into_inner()).take() {
            slot.clear();
        }
    }
}

fn zeroed_strategy_info() -> sys::frugal_strategy_info {
    // SAFETY: all-zero is a valid value of this plain C struct.
    let mut info: sys::frugal_strategy_info = unsafe { std::mem::zeroed() };
    info.struct_size = std::mem::size_of::<sys::frugal_strategy_info>();
    info
}

/// Copies a strategy description.
///
/// # Safety
/// The strings of `info` are alive for the call.
unsafe fn strategy_of(info: &sys::frugal_strategy_info, options: Vec<OptionDecl>) -> StrategyInfo {
    StrategyInfo {
        kind: info.kind,
        kind_name: copy_c_str(sys::frugal_strategy_kind_name(info.kind)),
        flags: info.flags,
        name: copy_c_str(info.name),
        summary: copy_c_str(info.summary),
        plugin_name: copy_c_str(info.plugin_name),
        shadowed: info.shadowed != 0,
        options,
    }
}

/// Copies an option declaration.
///
/// # Safety
/// The strings of `info` are alive for the call.
unsafe fn option_of(info: &sys::frugal_option_info) -> OptionDecl {
    let has = |flag: u32| info.flags & flag != 0;
    let text = |ptr: *const c_char| if ptr.is_null() { None } else { Some(copy_c_str(ptr)) };
    OptionDecl {
        name: copy_c_str(info.name),
        value_type: OptionType::from_raw(info.type_).unwrap_or(OptionType::Other(info.type_)),
        required: has(sys::FRUGAL_OPTION_DECL_REQUIRED),
        default: text(info.default_value),
        min: if has(sys::FRUGAL_OPTION_DECL_HAS_MIN) { Some(info.min) } else { None },
        max: if has(sys::FRUGAL_OPTION_DECL_HAS_MAX) { Some(info.max) } else { None },
        choices: text(info.choices).map(|choices| choices.split('|').map(str::to_string).collect()),
        directory: has(sys::FRUGAL_OPTION_DECL_DIRECTORY),
        doc: copy_c_str(info.doc),
    }
}

/// A log level (frugal/types.h `frugal_log_level_values`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LogLevel {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
    /// A level this binding does not name (from a newer core).
    Other(i32),
}

impl LogLevel {
    /// The level of a C value.
    pub fn from_raw(raw: i32) -> LogLevel {
        match raw {
            sys::FRUGAL_LOG_TRACE => LogLevel::Trace,
            sys::FRUGAL_LOG_DEBUG => LogLevel::Debug,
            sys::FRUGAL_LOG_INFO => LogLevel::Info,
            sys::FRUGAL_LOG_WARN => LogLevel::Warn,
            sys::FRUGAL_LOG_ERROR => LogLevel::Error,
            other => LogLevel::Other(other),
        }
    }

    /// The C value (`sys::FRUGAL_LOG_*`).
    pub fn raw(self) -> i32 {
        match self {
            LogLevel::Trace => sys::FRUGAL_LOG_TRACE,
            LogLevel::Debug => sys::FRUGAL_LOG_DEBUG,
            LogLevel::Info => sys::FRUGAL_LOG_INFO,
            LogLevel::Warn => sys::FRUGAL_LOG_WARN,
            LogLevel::Error => sys::FRUGAL_LOG_ERROR,
            LogLevel::Other(raw) => raw,
        }
    }
}

type LogCallback = Box<dyn Fn(LogLevel, &str, &str) + Send + Sync>;

/// What the core's `user_data` points to: never freed, so a plugin that
/// logs after the context is gone still reads valid memory; the closure in
/// it is owned by the context and taken out (under the write lock, so after
/// any running call) when replaced or dropped.
struct LogSlot {
    callback: RwLock<Option<LogCallback>>,
}

impl LogSlot {
    /// Drops the closure once no call is running it; later messages find none.
    fn clear(&self) {
        let taken = self.callback.write().unwrap_or_else(|e| e.into_inner()).take();
        drop(taken);
    }
}

/// The frugal_log_fn handed to the core: forwards to the slot's closure.
unsafe extern "C" fn log_trampoline(user_data: *mut c_void, level: i32, source: *const c_char, message: *const c_char) {
    // Nothing may unwind into C: a panic (in the closure, or in copying the
    // strings) is caught and the message dropped.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: user_data is a leaked LogSlot (set_log_callback), valid forever.
        let slot = &*(user_data as *const LogSlot);
        let guard = match slot.callback.read() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(callback) = guard.as_ref() {
            // SAFETY: the core passes NUL-terminated strings valid during the call.
            let (source, message) = (CStr::from_ptr(source).to_string_lossy(), CStr::from_ptr(message).to_string_lossy());
            callback(LogLevel::from_raw(level), &source, &message);
        }
    }));
}
