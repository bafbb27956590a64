/*
 * frugal/types.h — the vocabulary shared by hosts and plugins: error codes,
 * opaque handle types, option value types, log levels, strategy kinds and
 * the extension-chain header.
 *
 * Declares no function, so a plugin may include it without linking
 * libfrugal. Enumerations are carried in structs and signatures as int32_t,
 * never as C enum types, so their size is fixed on every compiler; the enum
 * declarations only name the values. Values are stable forever: new values
 * are appended by later minors, none is ever renumbered or reused. A
 * receiver must treat an unknown value as "not supported", never as UB.
 */
#ifndef FRUGAL_TYPES_H_
#define FRUGAL_TYPES_H_

#include <stddef.h>
#include <stdint.h>

#include "frugal/platform.h"
#include "frugal/version.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Errors                                                                   */
/* ======================================================================== */

/**
 * Stable error codes. Carried as int32_t. A function that fails returns a
 * frugal_error* holding one of these and a human-readable message; NULL
 * means success. FRUGAL_OK is never stored in an error object.
 */
enum frugal_error_code_values {
  FRUGAL_OK = 0,                       /**< Success (never inside an error object). */
  FRUGAL_ERR_INVALID_ARGUMENT = 1,     /**< A caller-supplied value is malformed or out of its domain. */
  FRUGAL_ERR_NOT_FOUND = 2,            /**< A named plugin, strategy, option or file does not exist. */
  FRUGAL_ERR_ALREADY_EXISTS = 3,       /**< A name is already taken (e.g. a duplicate plugin). */
  FRUGAL_ERR_OUT_OF_RANGE = 4,         /**< An index or value lies outside the valid range. */
  FRUGAL_ERR_UNIMPLEMENTED = 5,        /**< An optional feature is not provided by this implementation. */
  FRUGAL_ERR_UNSUPPORTED = 6,          /**< A valid combination (dtype, layout, device...) this code does not handle. */
  FRUGAL_ERR_ABI_MISMATCH = 7,         /**< Incompatible ABI major, or a struct too small to hold required fields. */
  FRUGAL_ERR_PLUGIN_INVALID = 8,       /**< A plugin file or descriptor breaks the plugin contract. */
  FRUGAL_ERR_IO = 9,                   /**< The operating system reported an I/O failure. */
  FRUGAL_ERR_DATA_CORRUPTED = 10,      /**< Stored data failed a checksum or format check. */
  FRUGAL_ERR_OUT_OF_MEMORY = 11,       /**< An allocation failed. */
  FRUGAL_ERR_FAILED_PRECONDITION = 12, /**< The object is not in a state that allows the call. */
  FRUGAL_ERR_DEADLINE_EXCEEDED = 13,   /**< An operation did not finish before its deadline. */
  FRUGAL_ERR_CANCELLED = 14,           /**< The operation was cancelled. */
  FRUGAL_ERR_DEVICE = 15,              /**< The accelerator runtime (CUDA, ...) reported a failure. */
  FRUGAL_ERR_INTERNAL = 16             /**< A bug in frugal or a plugin (includes caught exceptions). */
};

/**
 * Opaque error object. Created by libfrugal (frugal_error_create) or by a
 * plugin through frugal_host_api.error_create; the receiver owns it. A host
 * releases it with frugal_error_destroy; a plugin either returns it to the
 * core or releases it with frugal_host_api.error_destroy. Immutable, so any
 * thread may read it.
 */
typedef struct frugal_error frugal_error;

/* ======================================================================== */
/* Opaque handles                                                           */
/* ======================================================================== */

/**
 * A set of typed named values used to configure contexts and strategies.
 * Created and filled by the host (frugal/options.h); read by plugins through
 * frugal_host_api. Not thread-safe for writing; concurrent reads are fine.
 */
typedef struct frugal_options frugal_options;

/**
 * A libfrugal context: loaded plugins, the strategy registry and the log
 * sink. See frugal/context.h for its lifetime and thread-safety rules.
 */
typedef struct frugal_context frugal_context;

/**
 * One process's end of a group of ranks (frugal/comm.h). Hosts create and
 * destroy it; plugins receive it as a FRUGAL_OPTION_COMM option and call
 * collectives on it through frugal_host_api. ABI 2.1.
 */
typedef struct frugal_comm frugal_comm;

/* ======================================================================== */
/* Option value types                                                       */
/* ======================================================================== */

/** Type of one option value. Carried as int32_t. */
enum frugal_option_type_values {
  FRUGAL_OPTION_INT = 1,    /**< int64_t. May also be read as a double. */
  FRUGAL_OPTION_DOUBLE = 2, /**< double. */
  FRUGAL_OPTION_BOOL = 3,   /**< Boolean, carried as int32_t 0 or 1. */
  FRUGAL_OPTION_STRING = 4, /**< NUL-terminated UTF-8 string, copied on set. */
  /**
   * A communicator (frugal_comm*, frugal/comm.h), held by reference: the
   * options object and every strategy instance created with it keep the
   * comm alive. Added in ABI 2.1; read with frugal_options_get_comm
   * (hosts) or frugal_host_api.option_get_comm (plugins).
   */
  FRUGAL_OPTION_COMM = 5
};

/* ======================================================================== */
/* Log levels                                                               */
/* ======================================================================== */

/** Severity of a log message. Carried as int32_t; higher is more severe. */
enum frugal_log_level_values {
  FRUGAL_LOG_TRACE = 0,
  FRUGAL_LOG_DEBUG = 1,
  FRUGAL_LOG_INFO = 2,
  FRUGAL_LOG_WARN = 3,
  FRUGAL_LOG_ERROR = 4,
  /** Only as a threshold: log nothing. New levels are added below it. */
  FRUGAL_LOG_OFF = 1000
};

/* ======================================================================== */
/* Strategy kinds                                                           */
/* ======================================================================== */

/**
 * The family a strategy belongs to; it fixes which vtable type the
 * strategy's descriptor points to. Carried as int32_t. Values 1..63 are
 * reserved for frugal. A core skips, with a warning, a strategy of any kind
 * it has no vtable for (a kind added by a later minor) and
 * keeps the rest of the plugin; skipped strategies are not registered.
 */
enum frugal_strategy_kind_values {
  FRUGAL_KIND_ROUTER = 1,    /**< MoE routers. */
  FRUGAL_KIND_QUANTIZER = 2, /**< FP8/INT8 quantizers. */
  FRUGAL_KIND_PACKER = 3,    /**< Sequence packers (frugal/packer_vtable.h). */
  FRUGAL_KIND_POLICY = 4,    /**< Cost policies (spot/reserved, cadence, scaling). */
  FRUGAL_KIND_SCHEDULE = 5,  /**< Learning-rate schedules (frugal/schedule_vtable.h). */
  FRUGAL_KIND_STORE = 6,     /**< Checkpoint storage backends. */
  FRUGAL_KIND_COMM = 7       /**< Collective-communication backends (frugal/comm_vtable.h); ABI 2.1. */
};

/** Strategy flag: calls on one instance may run concurrently from several threads. */
#define FRUGAL_STRATEGY_THREAD_SAFE ((uint32_t)1 << 0)
/** Strategy flag: equal inputs, options and seed always give bit-identical outputs. */
#define FRUGAL_STRATEGY_DETERMINISTIC ((uint32_t)1 << 1)

/* ======================================================================== */
/* Checkpoint kinds                                                         */
/* ======================================================================== */

/**
 * Checkpoint kinds, one set for the run scheduler's decisions and policies'
 * proposals (frugal/telemetry.h) and for the checkpoint engine
 * (frugal/checkpoint.h), so a host passes a decision's kind to
 * frugal_ckpt_save as it is. Carried as int32_t. Ordered by weight (a
 * merge of proposals keeps the heaviest); HEARTBEAT and FULL are also the
 * bits of the engine's `kinds` masks (FRUGAL_CKPT_ALL_KINDS).
 */
enum frugal_ckpt_kind_values {
  FRUGAL_CKPT_NONE = 0,      /**< No checkpoint now (decisions only; never a saved checkpoint's kind). */
  FRUGAL_CKPT_HEARTBEAT = 1, /**< Light, frequent: only the state needed to resume. */
  FRUGAL_CKPT_FULL = 2       /**< Everything registered (model, optimizer, data position, strategy states). */
};

/* ======================================================================== */
/* Extension chains                                                         */
/* ======================================================================== */

/**
 * Header of every extension struct. Optional features travel on typed,
 * singly linked chains hung off an `ext` field instead of occupying core
 * slots. A receiver walks the chain, uses the types it knows and skips the
 * rest. Chains are owned by whoever built them and must stay valid for the
 * duration documented at the `ext` field that holds them.
 */
typedef struct frugal_ext_header {
  /** sizeof the full extension struct, as built by its producer. */
  size_t struct_size;
  /** Identifies the extension struct type: one of the FRUGAL_EXT_* tags below. */
  int32_t type;
  /** Padding; producers set it to 0. */
  int32_t reserved;
  /** Next extension, or NULL at the end of the chain. */
  const struct frugal_ext_header* next;
} frugal_ext_header;

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ext_header, struct_size) == 0, ext_header_struct_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ext_header, type) == 8, ext_header_type);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_ext_header, next) == 16, ext_header_next);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_ext_header) == 24, ext_header_size);
#endif

/*
 * The registry of extension type tags: every tag of the ABI is defined
 * here, in one place, so that two headers cannot hand out one number. A
 * tag is (kind << 16) | n, kind being a frugal_strategy_kind_values value
 * and n counting from 1 within it; kind 0 holds the extensions that apply
 * to every kind. A new extension takes the next n of its kind, appends a
 * line here and one to the table in docs/abi-rules.md (rule 4), and its
 * struct starts with a frugal_ext_header. Tags are never reused.
 */

/** frugal_strategy_options_ext (plugin.h) on frugal_strategy_desc.ext: declared options. */
#define FRUGAL_EXT_STRATEGY_OPTIONS 0x00000001
/** frugal_quant_zero_point_ext (quantizer_vtable.h) on frugal_quant_meta.ext: INT8 zero points. */
#define FRUGAL_EXT_QUANT_ZERO_POINT 0x00020001

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_TYPES_H_ */
