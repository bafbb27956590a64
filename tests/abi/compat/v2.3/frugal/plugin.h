/*
 * frugal/plugin.h — the plugin contract: the one entry point a plugin
 * exports, the descriptors it returns, and the host services table through
 * which it reaches the core.
 *
 * A plugin is a shared library that
 *   - exports exactly one symbol, FRUGAL_PLUGIN_ENTRY ("frugal_plugin_init_v2",
 *     the ABI major in its name), of type frugal_plugin_init_fn;
 *   - never links libfrugal and never calls a frugal_* function directly:
 *     everything it needs from the core (errors, logging, allocation,
 *     option values) comes through the frugal_host_api table it receives;
 *   - never lets a C++ exception, a std:: type or memory it allocated with
 *     its own allocator cross the boundary (whoever allocates frees).
 *
 * Negotiation. The core passes a host table stamped with its ABI version;
 * the plugin returns a descriptor stamped with the version it was built
 * against. A different major is refused with an error naming both versions
 * and the file. Minors are compatible both ways: every struct starts with
 * struct_size, receivers read only fields inside it and default the rest,
 * and a plugin built for a newer minor must check host->struct_size (or
 * host->abi_minor) before using a host slot added after 2.0.
 *
 * Declares no function; safe for plugins.
 */
#ifndef FRUGAL_PLUGIN_H_
#define FRUGAL_PLUGIN_H_

#include "frugal/tensor.h"
#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Host services table                                                      */
/* ======================================================================== */

/* Defined in frugal/comm_vtable.h (which includes this header). */
struct frugal_comm_info;
struct frugal_comm_call;

/**
 * Services the core offers to one loaded plugin. Owned by the core, one
 * table per loaded plugin, valid until the plugin is unloaded (which the
 * core does only after every object created from the plugin is gone). All
 * slots of v2.0 and v2.1 are non-NULL and thread-safe (a comm slot on one
 * comm is serialised with the comm's other calls).
 *
 * An error returned by a slot is owned by the plugin: it either returns it
 * from the current vtable call (the core then owns it) or releases it with
 * error_destroy (e.g. after handling a failed option read itself).
 */
typedef struct frugal_host_api {
  /** sizeof(frugal_host_api) of the core; slots past it do not exist. */
  size_t struct_size;
  /** ABI major of the core (FRUGAL_ABI_VERSION_MAJOR it was built with). */
  uint32_t abi_major;
  /** ABI minor of the core. */
  uint32_t abi_minor;
  /** Core-private identity of this plugin; never dereference it. */
  void* host_data;

  /**
   * Logs a message under the plugin's name (its file path during init), to
   * the sink of the context that first loaded it.
   *   host:    this table (NULL: nothing is logged).
   *   level:   frugal_log_level_values.
   *   message: UTF-8, copied; NULL logs "".
   */
  void (*log)(const struct frugal_host_api* host, int32_t level, const char* message);

  /**
   * Allocates `size` bytes of uninitialised CPU memory aligned to
   * `alignment` (a power of two; 0 means 16). Returns NULL on failure, when
   * size is 0 or when alignment is not a power of two. The plugin owns the
   * memory and frees it with `free` of the same table before it unloads.
   */
  void* (*alloc)(const struct frugal_host_api* host, size_t size, size_t alignment);

  /** Frees memory from `alloc`. NULL allowed. */
  void (*free)(const struct frugal_host_api* host, void* ptr);

  /**
   * Creates an error object to return from a vtable function. The core
   * takes ownership when the error is returned to it. Never returns NULL.
   *   code: frugal_error_code_values; an unknown value (or FRUGAL_OK) is
   *         stored as FRUGAL_ERR_INTERNAL. message: UTF-8, copied; NULL -> "".
   */
  frugal_error* (*error_create)(int32_t code, const char* message);

  /**
   * Reads an INT option; absent -> default_value. Same rules as
   * frugal_options_get_int: NULL options behave as empty; name must not be
   * NULL.
   *   out: // out, not NULL.
   */
  frugal_error* (*option_get_int)(const frugal_options* options, const char* name, int64_t default_value, int64_t* out);
  /**
   * Reads a DOUBLE option (INT converts); absent -> default_value.
   *   out: // out, not NULL.
   */
  frugal_error* (*option_get_double)(const frugal_options* options, const char* name, double default_value,
                                     double* out);
  /**
   * Reads a BOOL option as 0/1; absent -> default_value (normalised to 0/1).
   *   out: // out, not NULL.
   */
  frugal_error* (*option_get_bool)(const frugal_options* options, const char* name, int32_t default_value,
                                   int32_t* out);
  /**
   * Reads a STRING option; absent -> default_value (may be NULL).
   *   out: // out, not NULL; receives a string owned by the options object
   *        (or default_value as given), valid while the vtable call that
   *        received the options runs.
   */
  frugal_error* (*option_get_string)(const frugal_options* options, const char* name, const char* default_value,
                                     const char** out);
  /**
   * Fails with FRUGAL_ERR_INVALID_ARGUMENT, naming the first option whose
   * name is not in `known` (count entries) and listing the known ones, so
   * a misspelt option never passes silently. `known` may be NULL only when
   * count is 0; NULL entries in it are skipped. `owner` (e.g. "schedule
   * 'cosine'"; NULL allowed: no prefix) prefixes the message. NULL options
   * pass.
   */
  frugal_error* (*options_check_known)(const frugal_options* options, const char* const* known, size_t count,
                                       const char* owner);
  /**
   * The type of option `name` (frugal_option_type_values), or 0 when it is
   * absent or options or name is NULL. Never fails. Lets a strategy tell
   * "not given" from any value, e.g. for a required option.
   */
  int32_t (*option_type)(const frugal_options* options, const char* name);
  /**
   * Destroys an error the plugin owns and will not return (one made by
   * error_create or returned by another slot). NULL allowed.
   */
  void (*error_destroy)(frugal_error* error);

  /* ---- ABI 2.1: communicators (check struct_size >= FRUGAL_HOST_API_V2_1_SIZE) ---- */

  /**
   * Reads a COMM option (frugal/comm.h): the communicator the host handed
   * the strategy. Absent -> *out = NULL. The handle stays valid until the
   * instance created with these options is destroyed (the core holds a
   * reference for it); never destroy it.
   *   out: // out, not NULL.
   */
  frugal_error* (*option_get_comm)(const frugal_options* options, const char* name, frugal_comm** out);
  /**
   * Describes `comm` (rank, size, device type).
   *   out: // out, not NULL, struct_size set by the caller.
   */
  frugal_error* (*comm_info)(const frugal_comm* comm, struct frugal_comm_info* out);
  /**
   * Runs one collective on `comm`, checked as the host API checks its own
   * (see frugal/comm_vtable.h: counts, displacements, dtypes, devices).
   * `call->timeout_ms` 0 means the comm's deadline. The same collective
   * order rules hold: every rank of the group must make the call. Not to
   * be called on the comm a comm backend is serving itself.
   */
  frugal_error* (*comm_run)(frugal_comm* comm, const struct frugal_comm_call* call);
} frugal_host_api;

/**
 * Size of the v2.0 host table, frozen: a plugin may rely on every slot
 * below it; for a slot added later it checks host->struct_size first.
 */
#define FRUGAL_HOST_API_V2_0_SIZE (offsetof(frugal_host_api, error_destroy) + sizeof(void*))

/** Size of the v2.1 host table: the 2.0 slots plus option_get_comm, comm_info and comm_run. */
#define FRUGAL_HOST_API_V2_1_SIZE (offsetof(frugal_host_api, comm_run) + sizeof(void*))

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, abi_major) == 8, host_abi_major);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, abi_minor) == 12, host_abi_minor);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, host_data) == 16, host_data);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, log) == 24, host_log);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, alloc) == 32, host_alloc);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, free) == 40, host_free);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, error_create) == 48, host_error_create);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, option_get_int) == 56, host_option_get_int);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, option_get_double) == 64, host_option_get_double);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, option_get_bool) == 72, host_option_get_bool);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, option_get_string) == 80, host_option_get_string);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, options_check_known) == 88, host_options_check_known);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, option_type) == 96, host_option_type);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, error_destroy) == 104, host_error_destroy);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, option_get_comm) == 112, host_option_get_comm);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, comm_info) == 120, host_comm_info);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_host_api, comm_run) == 128, host_comm_run);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_host_api) == 136, host_size);
#endif

/* ======================================================================== */
/* Strategy descriptor                                                      */
/* ======================================================================== */

/**
 * One strategy a plugin provides. Owned by the plugin; must stay valid and
 * unchanged until the plugin is unloaded (static storage is the norm).
 * Strings are NUL-terminated, at most 4096 bytes; the core copies them.
 * A struct_size below FRUGAL_STRATEGY_DESC_MIN_SIZE refuses the plugin
 * (FRUGAL_ERR_ABI_MISMATCH).
 */
typedef struct frugal_strategy_desc {
  /** sizeof(frugal_strategy_desc) as built by the plugin. */
  size_t struct_size;
  /** One of frugal_strategy_kind_values; selects the vtable type. A kind without a vtable in this core is skipped. */
  int32_t kind;
  /** FRUGAL_STRATEGY_* flags the plugin promises. */
  uint32_t flags;
  /**
   * Name, unique per kind within the plugin: 1..64 bytes of
   * [a-z0-9_.-], starting with a letter. Not NULL.
   */
  const char* name;
  /** One-line human description, or NULL. */
  const char* summary;
  /**
   * The kind's vtable (e.g. frugal_schedule_vtable), whose first field is
   * its own struct_size. Not NULL, at least the kind's *_MIN_SIZE bytes,
   * every required slot non-NULL; otherwise the plugin is refused.
   */
  const void* vtable;
  /**
   * Extension chain, NULL when none. The core reads
   * frugal_strategy_options_ext (FRUGAL_EXT_STRATEGY_OPTIONS) from it, once
   * per type (a second one refuses the plugin); at most 64 links.
   */
  const frugal_ext_header* ext;
} frugal_strategy_desc;

/** Bytes of frugal_strategy_desc a receiver requires (through `vtable`). */
#define FRUGAL_STRATEGY_DESC_MIN_SIZE (offsetof(frugal_strategy_desc, vtable) + sizeof(const void*))

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_strategy_desc, kind) == 8, strategy_kind);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_strategy_desc, flags) == 12, strategy_flags);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_strategy_desc, name) == 16, strategy_name);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_strategy_desc, summary) == 24, strategy_summary);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_strategy_desc, vtable) == 32, strategy_vtable);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_strategy_desc, ext) == 40, strategy_ext);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_strategy_desc) == 48, strategy_size);
#endif

/* ======================================================================== */
/* Option declarations                                                      */
/* ======================================================================== */

/** frugal_option_decl.flags: the option must be given (then it has no default). */
#define FRUGAL_OPTION_DECL_REQUIRED ((uint32_t)1 << 0)
/** frugal_option_decl.flags: `min` is an inclusive lower bound (INT and DOUBLE only). */
#define FRUGAL_OPTION_DECL_HAS_MIN ((uint32_t)1 << 1)
/** frugal_option_decl.flags: `max` is an inclusive upper bound (INT and DOUBLE only). */
#define FRUGAL_OPTION_DECL_HAS_MAX ((uint32_t)1 << 2)
/**
 * frugal_option_decl.flags: a STRING naming a directory the strategy may
 * create and write (e.g. a store's root); tools that need a valid value
 * (the conformance kit) pass a fresh empty directory.
 */
#define FRUGAL_OPTION_DECL_DIRECTORY ((uint32_t)1 << 3)

/**
 * One option a strategy accepts. Owned by the plugin (static
 * storage is the norm), valid and unchanged until the plugin is unloaded;
 * the core copies it at load. Strings are NUL-terminated UTF-8 of at most
 * 4096 bytes. A declaration the core cannot accept (unknown type, a name
 * outside the option-name grammar of frugal/options.h, a name declared
 * twice, min > max, a bound on a non-numeric type, a default that does not
 * parse as the type or lies outside the range or choices, a required
 * option with a default, a NULL or multi-line doc) refuses the plugin with
 * FRUGAL_ERR_PLUGIN_INVALID naming the strategy and the option.
 *
 * The declaration describes what create accepts on its own; constraints
 * between options (min_lr <= lr) stay the plugin's to check and report.
 */
typedef struct frugal_option_decl {
  /** sizeof(frugal_option_decl) as built by the plugin; at least through `doc`. */
  size_t struct_size;
  /** Option name (frugal/options.h grammar: 1..128 bytes of [A-Za-z0-9_.-]). Not NULL. */
  const char* name;
  /** frugal_option_type_values. A DOUBLE option also accepts an INT value. */
  int32_t type;
  /** FRUGAL_OPTION_DECL_* bits; unknown bits are ignored. */
  uint32_t flags;
  /**
   * The value create uses when the option is absent, spelt as
   * frugal_options_set_parsed reads it ("0.001", "100", "true", "cosine").
   * NULL: no default (required, or absence has its own meaning, see doc).
   */
  const char* default_value;
  /** Inclusive lower bound when FRUGAL_OPTION_DECL_HAS_MIN (an integer value for INT). */
  double min;
  /** Inclusive upper bound when FRUGAL_OPTION_DECL_HAS_MAX (an integer value for INT). */
  double max;
  /** STRING only: the allowed values separated by '|' ("cosine|linear"), or NULL for any string. */
  const char* choices;
  /** What the option does, one line, no newline. Not NULL. */
  const char* doc;
} frugal_option_decl;

/**
 * Chained on frugal_strategy_desc.ext: the options the strategy's create
 * accepts. Owned like the desc it hangs on. With it, the
 * core checks options against the declarations before calling create
 * (frugal_error_code_values: an unknown or ill-typed option, a value not
 * among the choices and a missing required option are
 * FRUGAL_ERR_INVALID_ARGUMENT; a value outside [min, max] is
 * FRUGAL_ERR_OUT_OF_RANGE), and hosts can list them
 * (frugal_context_strategy_option). option_count 0 declares that the
 * strategy takes no option.
 */
typedef struct frugal_strategy_options_ext {
  /** type == FRUGAL_EXT_STRATEGY_OPTIONS; struct_size at least through `options`. */
  frugal_ext_header header;
  /** Entries in `options`, at most 256. */
  size_t option_count;
  /** option_count non-NULL pointers (NULL allowed when option_count is 0); pointers so each decl can grow. */
  const frugal_option_decl* const* options;
} frugal_strategy_options_ext;

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_option_decl, name) == 8, option_decl_name);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_option_decl, type) == 16, option_decl_type);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_option_decl, flags) == 20, option_decl_flags);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_option_decl, default_value) == 24, option_decl_default);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_option_decl, min) == 32, option_decl_min);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_option_decl, max) == 40, option_decl_max);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_option_decl, choices) == 48, option_decl_choices);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_option_decl, doc) == 56, option_decl_doc);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_option_decl) == 64, option_decl_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_strategy_options_ext, option_count) == 24, options_ext_count);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_strategy_options_ext, options) == 32, options_ext_options);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_strategy_options_ext) == 40, options_ext_size);
#endif

/* ======================================================================== */
/* Plugin descriptor                                                        */
/* ======================================================================== */

/**
 * What a plugin is and what it provides. Owned by the plugin, valid until
 * it is unloaded. Fields up to and including `strategies` are required
 * (FRUGAL_PLUGIN_DESC_MIN_SIZE; a smaller struct_size is
 * FRUGAL_ERR_ABI_MISMATCH); later ones are read only when inside
 * struct_size and default to NULL otherwise. Strings are NUL-terminated
 * UTF-8 of at most 4096 bytes; the core copies them at load.
 */
typedef struct frugal_plugin_desc {
  /** sizeof(frugal_plugin_desc) as built by the plugin. */
  size_t struct_size;
  /** FRUGAL_ABI_VERSION_MAJOR the plugin was built against. */
  uint32_t abi_major;
  /** FRUGAL_ABI_VERSION_MINOR the plugin was built against. */
  uint32_t abi_minor;
  /** Plugin name, unique among a context's plugins: 1..64 bytes of [a-z0-9_.-], starting with a letter. Not NULL. */
  const char* name;
  /** Plugin version, free-form (semantic versioning recommended). Not NULL. */
  const char* version;
  /** Who ships it. Not NULL. */
  const char* vendor;
  /** SPDX license expression. Not NULL. */
  const char* license;
  /** Number of entries in `strategies`, at most 4096 (0 is allowed but useless). */
  size_t strategy_count;
  /** Array of strategy_count non-NULL pointers (NULL allowed when strategy_count is 0); pointers so each desc can grow.
   */
  const frugal_strategy_desc* const* strategies;
  /** Longer description, or NULL. */
  const char* description;
  /**
   * Called once, just before the core unloads the plugin (after every
   * object created from it is destroyed), including when the core refuses
   * a descriptor of the right size and major. Not called when init fails
   * or the descriptor is undersized or of another major.
   * Runs on the unloading thread, under a process-wide loader lock. NULL
   * allowed. Must not throw.
   */
  void (*on_unload)(void);
  /** Extension chain, NULL when none. */
  const frugal_ext_header* ext;
} frugal_plugin_desc;

/** Bytes of frugal_plugin_desc a core requires (through `strategies`). */
#define FRUGAL_PLUGIN_DESC_MIN_SIZE (offsetof(frugal_plugin_desc, strategies) + sizeof(void*))

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_plugin_desc, abi_major) == 8, plugin_abi_major);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_plugin_desc, abi_minor) == 12, plugin_abi_minor);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_plugin_desc, name) == 16, plugin_name);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_plugin_desc, version) == 24, plugin_version);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_plugin_desc, vendor) == 32, plugin_vendor);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_plugin_desc, license) == 40, plugin_license);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_plugin_desc, strategy_count) == 48, plugin_strategy_count);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_plugin_desc, strategies) == 56, plugin_strategies);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_plugin_desc, description) == 64, plugin_description);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_plugin_desc, on_unload) == 72, plugin_on_unload);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_plugin_desc, ext) == 80, plugin_ext);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_plugin_desc) == 88, plugin_size);
#endif

/* ======================================================================== */
/* Entry point                                                              */
/* ======================================================================== */

/**
 * The entry point every ABI-2 plugin defines, as an identifier:
 *   extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* FRUGAL_PLUGIN_ENTRY(...)
 * The major is part of the name, so a core never calls the entry point of
 * a plugin built for another major (it finds another name and refuses it).
 */
#define FRUGAL_PLUGIN_ENTRY frugal_plugin_init_v2
/** FRUGAL_PLUGIN_ENTRY as a string, for dlsym. */
#define FRUGAL_PLUGIN_ENTRY_NAME "frugal_plugin_init_v2"

/**
 * The plugin entry point, exported as FRUGAL_PLUGIN_ENTRY_NAME.
 *   host: never NULL; the core's services for this plugin, valid until
 *         unload. The plugin may keep the pointer.
 *   out:  // out, never NULL; receives the plugin's descriptor
 *         (plugin-owned, valid until unload). Must be non-NULL on success.
 * Returns NULL on success, or an error made with host->error_create (then
 * *out is ignored and the plugin is unloaded; the host sees the error's
 * code, its message prefixed with the file). Called once each time the
 * library is loaded into the process (contexts share one load), on the
 * loading thread, under a process-wide loader lock. Must not throw (the
 * core catches and refuses the plugin if it does).
 */
typedef frugal_error* (*frugal_plugin_init_fn)(const frugal_host_api* host, const frugal_plugin_desc** out);

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_PLUGIN_H_ */
