/*
 * frugal/options.h — building typed named values (host side).
 *
 * Strategies are configured with a frugal_options object, never with a
 * public options struct: a new option is a new name, not a layout change.
 * Each value has a type (int, double, bool, string); setting a name again
 * replaces its value and type. Plugins read values through
 * frugal_host_api (frugal/plugin.h), which applies the same type rules as
 * the getters below.
 *
 * Type rules for reading: an INT value may be read as a double; every other
 * mismatch is FRUGAL_ERR_INVALID_ARGUMENT with a message naming the option,
 * its type and the type asked for.
 *
 * Names: 1..128 bytes of [A-Za-z0-9_.-]; anything else is rejected at set
 * time with FRUGAL_ERR_INVALID_ARGUMENT.
 *
 * Thread safety: setters and destroy need exclusive access; getters may
 * run concurrently with each other.
 *
 * Pointer arguments: `name` and every `// out` pointer must not be NULL
 * (FRUGAL_ERR_INVALID_ARGUMENT); `options` must not be NULL for setters,
 * while getters treat NULL options as empty. Exceptions are noted below.
 * Strings returned by getters stay valid until that name is set again or
 * the options object is destroyed (setting other names does not move them).
 */
#ifndef FRUGAL_OPTIONS_H_
#define FRUGAL_OPTIONS_H_

#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Lifetime                                                                 */
/* ======================================================================== */

/**
 * Creates an empty options object. Thread-safe.
 *   out: // out, not NULL; receives the new object, owned by the caller,
 *        destroy with frugal_options_destroy.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_options_create(frugal_options** out);

/** Destroys an options object and every string it handed out. NULL is allowed. */
FRUGAL_API void frugal_options_destroy(frugal_options* options);

/* ======================================================================== */
/* Setters                                                                  */
/* ======================================================================== */

/**
 * Sets `name` to an INT value. options and name must not be NULL. A new
 * name is appended; an existing one keeps its position (same for every
 * setter).
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_options_set_int(frugal_options* options, const char* name,
                                                                 int64_t value);

/** Sets `name` to a DOUBLE value. Non-finite values are allowed and stored as given. */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_options_set_double(frugal_options* options, const char* name,
                                                                    double value);

/** Sets `name` to a BOOL value; any nonzero `value` is stored as 1. */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_options_set_bool(frugal_options* options, const char* name,
                                                                  int32_t value);

/** Sets `name` to a STRING value; `value` (UTF-8, not NULL) is copied. */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_options_set_string(frugal_options* options, const char* name,
                                                                    const char* value);

/**
 * Sets `name` to a COMM value (ABI 2.1): a reference to `comm` (not NULL),
 * which stays alive while this value, a copy of the options or a strategy
 * instance created with them holds it, even after frugal_comm_destroy.
 * This is how a host hands a communicator to a strategy (a router's
 * expert-parallel group, comm_nccl's MPI bootstrap).
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_options_set_comm(frugal_options* options, const char* name,
                                                                  frugal_comm* comm);

/**
 * Sets `name` from `text` (not NULL), the way a command line or config file
 * spells it, independent of the locale: exactly "true"/"false" -> BOOL, a
 * decimal integer that fits int64 -> INT, a decimal or exponent number
 * (also "inf", "nan", and integers beyond int64) -> DOUBLE, anything else
 * (including a leading '+' or surrounding spaces) -> STRING, copied.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_options_set_parsed(frugal_options* options, const char* name,
                                                                    const char* text);

/* ======================================================================== */
/* Getters and iteration                                                    */
/* ======================================================================== */

/**
 * The type of `name` (frugal_option_type_values), or 0 when it is absent,
 * or when options or name is NULL. Never fails.
 */
FRUGAL_API int32_t frugal_options_type(const frugal_options* options, const char* name);

/** Number of values held. NULL options count as empty. Never fails. */
FRUGAL_API size_t frugal_options_count(const frugal_options* options);

/**
 * Describes the value at `index` (insertion order, 0-based).
 *   name: // out, not NULL; receives a string owned by `options`, valid
 *         until that entry is set again or `options` is destroyed.
 *   type: // out, not NULL; one of frugal_option_type_values.
 * FRUGAL_ERR_OUT_OF_RANGE when index >= count (always for NULL options).
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_options_entry(const frugal_options* options, size_t index,
                                                               const char** name, int32_t* type);

/**
 * Reads `name` as an int64. When the name is absent, *out = default_value.
 * NULL options behave as empty.
 *   out: // out, not NULL.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_options_get_int(const frugal_options* options, const char* name,
                                                                 int64_t default_value, int64_t* out);

/**
 * Reads `name` as a double (INT values convert). Absent -> default_value.
 *   out: // out, not NULL.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_options_get_double(const frugal_options* options, const char* name,
                                                                    double default_value, double* out);

/**
 * Reads `name` as a bool. Absent -> default_value (normalised to 0/1).
 *   out: // out, not NULL; receives 0 or 1.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_options_get_bool(const frugal_options* options, const char* name,
                                                                  int32_t default_value, int32_t* out);

/**
 * Reads `name` as a string. Absent -> default_value (may be NULL, then
 * *out is NULL).
 *   out: // out, not NULL; receives a string owned by `options` (or the
 *        caller's default_value as given), valid until `name` is set again
 *        or `options` is destroyed.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_options_get_string(const frugal_options* options, const char* name,
                                                                    const char* default_value, const char** out);

/**
 * Reads `name` as a communicator (ABI 2.1). Absent -> *out = NULL.
 *   out: // out, not NULL; a borrowed handle, valid while `options` holds
 *        the value. Do not destroy it.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_options_get_comm(const frugal_options* options, const char* name,
                                                                  frugal_comm** out);

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_OPTIONS_H_ */
