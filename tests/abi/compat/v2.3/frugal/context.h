/*
 * frugal/context.h — libfrugal's runtime: version query, contexts, logging,
 * plugin discovery and loading, and the registry of strategies (host side).
 *
 * A context owns a set of loaded plugins and a registry mapping
 * (kind, name) to a strategy. Objects created from a strategy (schedules,
 * ...) keep their plugin loaded on their own, so they may outlive the
 * context that made them.
 *
 * Thread safety: every function taking a context may be called from any
 * thread; calls on one context are serialised internally. The exception is
 * frugal_context_destroy, which must not run concurrently with any other
 * call on that context. The log callback may be invoked from any thread
 * that calls into frugal or a plugin.
 *
 * Unless stated otherwise, every pointer argument must be non-NULL; a NULL
 * one fails with FRUGAL_ERR_INVALID_ARGUMENT.
 */
#ifndef FRUGAL_CONTEXT_H_
#define FRUGAL_CONTEXT_H_

#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Runtime version                                                          */
/* ======================================================================== */

/**
 * The ABI version of the loaded libfrugal, packed as FRUGAL_ABI_VERSION.
 * A host built against major M must check FRUGAL_ABI_VERSION_GET_MAJOR of
 * this value equals M (the SONAME normally guarantees it). Thread-safe.
 */
FRUGAL_API uint32_t frugal_abi_version(void);

/** The SDK release of the loaded libfrugal ("0.5.0"); static storage. Thread-safe. */
FRUGAL_API const char* frugal_version_string(void);

/**
 * Number of usable CUDA devices: 0 when libfrugal was built without CUDA,
 * when no driver is installed or when no device is present. Never fails.
 * Thread-safe.
 */
FRUGAL_API int32_t frugal_cuda_device_count(void);

/** Nonzero when libfrugal was built with CUDA support. Thread-safe. */
FRUGAL_API int32_t frugal_built_with_cuda(void);

/* ======================================================================== */
/* Context lifetime                                                         */
/* ======================================================================== */

/**
 * Creates a context with no plugins loaded and the default log sink
 * (warnings and errors to stderr). Thread-safe.
 *   out: // out, not NULL; owned by the caller, destroy with
 *        frugal_context_destroy.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_context_create(frugal_context** out);

/**
 * Destroys a context. Strategy objects created from it stay valid and keep
 * their plugins loaded until they are destroyed. Every string obtained from
 * the context's introspection functions becomes invalid. NULL allowed.
 * Must not run concurrently with any other call on the same context.
 */
FRUGAL_API void frugal_context_destroy(frugal_context* context);

/* ======================================================================== */
/* Logging                                                                  */
/* ======================================================================== */

/**
 * Receives log messages.
 *   user_data: as given to frugal_context_set_log_callback; never
 *              dereferenced by frugal.
 *   level:     frugal_log_level_values.
 *   source:    "core", the plugin name, or the plugin's file path while its
 *              name is not yet known; never NULL, valid during the call only.
 *   message:   never NULL, valid during the call only.
 * May be called concurrently from several threads, possibly while the
 * context's internal lock is held, so it must not call back into the same
 * context.
 */
typedef void (*frugal_log_fn)(void* user_data, int32_t level, const char* source, const char* message);

/**
 * Installs the log sink of `context` and of every plugin it loads (plugins
 * already loaded switch too). `callback` NULL silences logging; `user_data`
 * may be NULL. Messages below `min_level`, and any at FRUGAL_LOG_OFF or
 * above, are dropped. A plugin file already loaded by another context in
 * this process is shared with it (one load per process) and keeps logging
 * to the sink of the context that loaded it first.
 * Lifetime: `user_data` must stay valid, even after it is replaced, until
 * every plugin this context loaded first has unloaded: that is, until the
 * context, every other context sharing those plugins, and every object
 * created from them (schedules, ...) are destroyed.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_context_set_log_callback(frugal_context* context,
                                                                          frugal_log_fn callback, void* user_data,
                                                                          int32_t min_level);

/* ======================================================================== */
/* Plugin loading                                                           */
/* ======================================================================== */

/** Discovery flag: do not read the FRUGAL_PLUGIN_PATH environment variable. */
#define FRUGAL_DISCOVER_NO_ENV ((uint32_t)1 << 0)
/**
 * Discovery flag: skip the built-in plugin directory and the system plugin
 * directories (those of an installation rather than of the host or the
 * user): with FRUGAL_DISCOVER_NO_ENV, only the host's directories are read.
 */
#define FRUGAL_DISCOVER_NO_BUILTIN ((uint32_t)1 << 1)

/**
 * Adds a directory to the host's search list, scanned by discovery after
 * the environment and the built-in directory and before the system
 * directories (see frugal_context_discover_plugins). `path` (not NULL, not empty:
 * FRUGAL_ERR_INVALID_ARGUMENT) is copied. A directory that does not exist
 * is recorded as a load failure at discovery, not reported here.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_context_add_plugin_dir(frugal_context* context, const char* path);

/**
 * Loads every "*.so" regular file or link to one (sorted by name within
 * each directory; an entry named "*.so" that is none, such as a dangling
 * link, a directory or a FIFO, is recorded as a load failure saying so and
 * never opened) from, in order:
 *   1. the directories of FRUGAL_PLUGIN_PATH (':'-separated, empty entries
 *      ignored; skipped with FRUGAL_DISCOVER_NO_ENV);
 *   2. the built-in plugin directory, <dir of libfrugal>/frugal/v2/plugins
 *      for ABI major 1, in the build tree and the install tree alike;
 *   3. the host's directories (frugal_context_add_plugin_dir), in the order
 *      added;
 *   4. the system plugin directories, where `cmake --install` (default
 *      prefix /usr/local) and distribution packages put plugins:
 *      /usr/local/lib/<multiarch>/frugal/v2/plugins,
 *      /usr/local/lib64/frugal/v2/plugins (64-bit hosts),
 *      /usr/local/lib/frugal/v2/plugins, then the same three under /usr
 *      (<multiarch> is the distribution's triplet, e.g. x86_64-linux-gnu,
 *      where it has one). FRUGAL_SYSTEM_PLUGIN_DIRS (':'-separated), when
 *      set, even to "", replaces this list: it exists for tests and
 *      relocated trees, not as a second FRUGAL_PLUGIN_PATH.
 * Steps 2 and 4 are skipped with FRUGAL_DISCOVER_NO_BUILTIN. Each directory
 * is scanned once, at its first place in this order (the same canonical
 * path twice, e.g. a packaged libfrugal's built-in directory that is also
 * a system one, counts once). A missing built-in or system directory is
 * skipped silently; a missing FRUGAL_PLUGIN_PATH or host directory is
 * recorded as a load failure. A file already loaded (same canonical path,
 * or same file through a hard link) is skipped. A file that fails is
 * recorded as a load failure (see frugal_context_load_failure) and logged
 * as a warning; it never stops discovery and never fails this call.
 *   flags:  FRUGAL_DISCOVER_* bits; other bits are ignored (pass 0).
 *   loaded: // out, NULL allowed: number of plugins newly loaded.
 * Fails only for a NULL context or when out of memory.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_context_discover_plugins(frugal_context* context, uint32_t flags,
                                                                          size_t* loaded);

/**
 * Loads one plugin file; `path` (not NULL) may be relative to the current
 * directory. Errors name the file and the reason: cannot be opened
 * (FRUGAL_ERR_NOT_FOUND); another ABI major or an undersized descriptor or
 * vtable (FRUGAL_ERR_ABI_MISMATCH); not a shared library of this host's
 * kind (the file is checked against its own ELF headers before dlopen, so
 * one cut short by a partial copy is refused, not mapped), no entry symbol,
 * entry threw, malformed descriptor such as missing names, NULL vtables or
 * a strategy declared twice (FRUGAL_ERR_PLUGIN_INVALID); the entry's own
 * error (its code kept); plugin name already loaded from another file
 * (FRUGAL_ERR_ALREADY_EXISTS). A refused file is recorded as a load failure
 * and unloaded unless another context uses it. Loading a file already
 * loaded (same canonical path, or same file through a hard link) succeeds
 * and does nothing.
 *
 * A plugin runs in the host's process, unsandboxed: one that crashes,
 * calls exit or hangs in its static constructors, its entry point, a
 * create slot or on_unload takes the host down (or blocks this call, or
 * frugal_context_destroy, forever); only what it returns is contained.
 * Load only plugins that passed frugal-conformance (docs/conformance.md),
 * or run untrusted ones in a process of their own.
 *
 * Duplicate strategies across plugins: the first loaded (kind, name) wins
 * the short name; the later one is logged as shadowed and stays reachable
 * as "plugin_name/strategy_name".
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_context_load_plugin(frugal_context* context, const char* path);

/* ======================================================================== */
/* Introspection                                                            */
/* ======================================================================== */

/**
 * Describes one loaded plugin. The caller allocates it and sets
 * struct_size; frugal writes only the fields that fit and leaves
 * struct_size as set. Strings are NUL-terminated, owned by the context and
 * valid until it is destroyed.
 */
typedef struct frugal_plugin_info {
  size_t struct_size;      /**< Set by the caller: sizeof(frugal_plugin_info). */
  const char* name;        /**< Plugin name. */
  const char* version;     /**< Plugin version string. */
  const char* vendor;      /**< Vendor. */
  const char* license;     /**< SPDX license. */
  const char* description; /**< Description, "" when none. */
  const char* path;        /**< Canonical path of the file, as first loaded in this process. */
  uint32_t abi_major;      /**< ABI major the plugin was built against. */
  uint32_t abi_minor;      /**< ABI minor the plugin was built against (may exceed the core's). */
  size_t strategy_count;   /**< Strategies registered from it (skipped kinds excluded). */
} frugal_plugin_info;

/**
 * Describes one strategy of a loaded plugin. Caller-allocated; the caller
 * sets struct_size and frugal writes only the fields that fit. Strings are
 * NUL-terminated, owned by the context and valid until it is destroyed.
 */
typedef struct frugal_strategy_info {
  size_t struct_size;      /**< Set by the caller: sizeof(frugal_strategy_info). */
  int32_t kind;            /**< frugal_strategy_kind_values. */
  uint32_t flags;          /**< FRUGAL_STRATEGY_* flags. */
  const char* name;        /**< Short name. */
  const char* summary;     /**< One-line description, "" when none. */
  const char* plugin_name; /**< The plugin providing it. */
  int32_t shadowed;        /**< 1 when another plugin owns the short name (reach this one as plugin/name). */
  int32_t reserved;        /**< Always 0. */
  /**
   * Options the strategy declares (frugal_strategy_options_ext),
   * read with frugal_context_strategy_option; 0 when it declares none.
   */
  size_t option_count;
} frugal_strategy_info;

/**
 * One option a strategy declares (frugal_option_decl, frugal/plugin.h).
 * Caller-allocated; the caller sets struct_size and frugal
 * writes only the fields that fit. Strings are NUL-terminated, owned by
 * the context and valid until it is destroyed.
 */
typedef struct frugal_option_info {
  size_t struct_size;        /**< Set by the caller: sizeof(frugal_option_info). */
  const char* name;          /**< Option name. */
  int32_t type;              /**< frugal_option_type_values. */
  uint32_t flags;            /**< FRUGAL_OPTION_DECL_* bits as declared. */
  const char* default_value; /**< The default as frugal_options_set_parsed text, NULL when none. */
  double min;                /**< Inclusive lower bound when flags has FRUGAL_OPTION_DECL_HAS_MIN, else 0. */
  double max;                /**< Inclusive upper bound when flags has FRUGAL_OPTION_DECL_HAS_MAX, else 0. */
  const char* choices;       /**< Allowed STRING values separated by '|', NULL for any. */
  const char* doc;           /**< One line of documentation, never NULL. */
} frugal_option_info;

/**
 * Describes a file that failed to load. Caller-allocated; the caller sets
 * struct_size and frugal writes only the fields that fit. Strings are
 * NUL-terminated, owned by the context and valid until it is destroyed
 * (later failures do not move them).
 */
typedef struct frugal_load_failure_info {
  size_t struct_size;  /**< Set by the caller: sizeof(frugal_load_failure_info). */
  const char* path;    /**< The file (or directory) that failed, as given or found (not canonical). */
  const char* message; /**< Why, in one line. */
  int32_t code;        /**< frugal_error_code_values. */
  int32_t reserved;    /**< Always 0. */
} frugal_load_failure_info;

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_plugin_info, path) == 48, plugin_info_path);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_plugin_info, abi_major) == 56, plugin_info_abi_major);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_plugin_info, strategy_count) == 64, plugin_info_strategy_count);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_plugin_info) == 72, plugin_info_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_strategy_info, name) == 16, strategy_info_name);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_strategy_info, shadowed) == 40, strategy_info_shadowed);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_strategy_info, option_count) == 48, strategy_info_option_count);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_strategy_info) == 56, strategy_info_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_option_info, type) == 16, option_info_type);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_option_info, min) == 32, option_info_min);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_option_info, doc) == 56, option_info_doc);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_option_info) == 64, option_info_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_load_failure_info, message) == 16, failure_info_message);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_load_failure_info, code) == 24, failure_info_code);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_load_failure_info) == 32, failure_info_size);
#endif

/** Number of loaded plugins. 0 for NULL. Never fails. */
FRUGAL_API size_t frugal_context_plugin_count(const frugal_context* context);

/**
 * Describes plugin `index` (load order, 0-based); FRUGAL_ERR_OUT_OF_RANGE
 * when index >= frugal_context_plugin_count.
 *   info: // out, caller-owned, not NULL; struct_size set by the caller (at
 *         least offsetof(frugal_plugin_info, name) + sizeof(char*), else
 *         FRUGAL_ERR_INVALID_ARGUMENT).
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_context_plugin_info(const frugal_context* context, size_t index,
                                                                     frugal_plugin_info* info);

/**
 * Describes strategy `strategy_index` (0..strategy_count-1 of that plugin's
 * frugal_plugin_info) of plugin `plugin_index`; FRUGAL_ERR_OUT_OF_RANGE
 * when either index is too large.
 *   info: // out, caller-owned, not NULL; struct_size set by the caller (at
 *         least sizeof(size_t) + sizeof(void*)).
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_context_strategy_info(const frugal_context* context,
                                                                       size_t plugin_index, size_t strategy_index,
                                                                       frugal_strategy_info* info);

/**
 * Describes option `option_index` (declaration order, 0..option_count-1 of
 * the strategy's frugal_strategy_info) of strategy `strategy_index` of
 * plugin `plugin_index`. FRUGAL_ERR_OUT_OF_RANGE when any
 * index is too large (always for a strategy that declares no options).
 *   info: // out, caller-owned, not NULL; struct_size set by the caller (at
 *         least sizeof(size_t) + sizeof(void*)).
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_context_strategy_option(const frugal_context* context,
                                                                         size_t plugin_index, size_t strategy_index,
                                                                         size_t option_index, frugal_option_info* info);

/**
 * Number of recorded load failures. They accumulate over discoveries and
 * frugal_context_load_plugin calls and are never cleared. 0 for NULL.
 */
FRUGAL_API size_t frugal_context_load_failure_count(const frugal_context* context);

/**
 * Describes load failure `index` (oldest first); FRUGAL_ERR_OUT_OF_RANGE
 * when index >= frugal_context_load_failure_count.
 *   info: // out, caller-owned, not NULL; struct_size set by the caller (at
 *         least sizeof(size_t) + sizeof(void*)).
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_context_load_failure(const frugal_context* context, size_t index,
                                                                      frugal_load_failure_info* info);

/**
 * Looks a strategy up by kind and name ("name" or "plugin/name"; not NULL).
 *   info: // out, caller-owned, not NULL; struct_size set by the caller (at
 *         least sizeof(size_t) + sizeof(void*)).
 * FRUGAL_ERR_NOT_FOUND names the kind and the name; for a short name it
 * also lists the available ones.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_context_find_strategy(const frugal_context* context, int32_t kind,
                                                                       const char* name, frugal_strategy_info* info);

/** Stable lower-case name of a strategy kind ("schedule", ...), or "unknown". Static storage. */
FRUGAL_API const char* frugal_strategy_kind_name(int32_t kind);

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_CONTEXT_H_ */
