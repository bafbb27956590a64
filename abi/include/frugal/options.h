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
 * Thread safety: setters need exclusive access; getters may run
 * concurrently with each other.
 */
#ifndef FRUGAL_OPTIONS_H_
#define FRUGAL_OPTIONS_H_

#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Lifetime                                                                 */
/* ======================================================================== */

/**
 * Creates an empty options object.
 *   out: // out, receives the new object, owned by the caller.
 */
FRUGAL_API frugal_error* frugal_options_create(frugal_options** out);

/** Destroys an options object. NULL is allowed. */
FRUGAL_API void frugal_options_destroy(frugal_options* options);

/* ======================================================================== */
/* Setters                                                                  */
/* ======================================================================== */

/** Sets `name` to an INT value. options and name must not be NULL. */
FRUGAL_API frugal_error* frugal_options_set_int(frugal_options* options, const char* name, int64_t value);

/** Sets `name` to a DOUBLE value. Non-finite values are allowed and stored as given. */
FRUGAL_API frugal_error* frugal_options_set_double(frugal_options* options, const char* name, double value);

/** Sets `name` to a BOOL value; any nonzero `value` is stored as 1. */
FRUGAL_API frugal_error* frugal_options_set_bool(frugal_options* options, const char* name, int32_t value);

/** Sets `name` to a STRING value; `value` (UTF-8, not NULL) is copied. */
FRUGAL_API frugal_error* frugal_options_set_string(frugal_options* options, const char* name, const char* value);

/**
 * Sets `name` from text, the way a command line or config file spells it:
 * "true"/"false" -> BOOL, a decimal integer -> INT, a decimal or exponent
 * number (also "inf", "nan") -> DOUBLE, anything else -> STRING.
 */
FRUGAL_API frugal_error* frugal_options_set_parsed(frugal_options* options, const char* name, const char* text);

/* ======================================================================== */
/* Getters and iteration                                                    */
/* ======================================================================== */

/**
 * The type of `name` (frugal_option_type_values), or 0 when it is absent,
 * or when options or name is NULL.
 */
FRUGAL_API int32_t frugal_options_type(const frugal_options* options, const char* name);

/** Number of values held. NULL options count as empty. */
FRUGAL_API size_t frugal_options_count(const frugal_options* options);

/**
 * Describes the value at `index` (insertion order, 0-based).
 *   name: // out, owned by `options`, valid until it is changed or destroyed.
 *   type: // out, one of frugal_option_type_values.
 * FRUGAL_ERR_OUT_OF_RANGE when index >= count.
 */
FRUGAL_API frugal_error* frugal_options_entry(const frugal_options* options, size_t index, const char** name,
                                              int32_t* type);

/**
 * Reads `name` as an int64. When the name is absent, *out = default_value.
 *   out: // out. NULL options behave as empty.
 */
FRUGAL_API frugal_error* frugal_options_get_int(const frugal_options* options, const char* name,
                                                int64_t default_value, int64_t* out);

/** Reads `name` as a double (INT values convert). Absent -> default_value. */
FRUGAL_API frugal_error* frugal_options_get_double(const frugal_options* options, const char* name,
                                                   double default_value, double* out);

/** Reads `name` as a bool (0 or 1). Absent -> default_value (normalised to 0/1). */
FRUGAL_API frugal_error* frugal_options_get_bool(const frugal_options* options, const char* name,
                                                 int32_t default_value, int32_t* out);

/**
 * Reads `name` as a string. Absent -> default_value (may be NULL).
 *   out: // out, owned by `options` (or the caller's default), valid until
 *        the value is changed or the options are destroyed.
 */
FRUGAL_API frugal_error* frugal_options_get_string(const frugal_options* options, const char* name,
                                                   const char* default_value, const char** out);

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_OPTIONS_H_ */
