/*
 * frugal/error.h — the error object API of libfrugal (host side).
 *
 * Every fallible frugal function returns frugal_error*: NULL on success, an
 * error object on failure. On failure no `// out` parameter has been
 * written. The caller owns the returned error and must destroy it. There is
 * no thread-local "last error": errors travel as values, which is what FFI
 * callers (a goroutine may change OS threads between two cgo calls) need.
 *
 * Plugins do not link libfrugal; they create errors with
 * frugal_host_api.error_create, which yields the same kind of object.
 */
#ifndef FRUGAL_ERROR_H_
#define FRUGAL_ERROR_H_

#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Error objects                                                            */
/* ======================================================================== */

/**
 * Creates an error object. Hosts use it to return errors from callbacks
 * they hand to frugal.
 *   code:    one of frugal_error_code_values other than FRUGAL_OK; other
 *            values are stored as FRUGAL_ERR_INTERNAL.
 *   message: NUL-terminated UTF-8, copied; NULL is stored as "".
 * Returns a new error owned by the caller, or a static out-of-memory error
 * (still safe to destroy) if allocation fails. Never returns NULL.
 * Thread-safe.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_error_create(int32_t code, const char* message);

/**
 * Returns the code of `error`, or FRUGAL_OK when error is NULL.
 * Thread-safe.
 */
FRUGAL_API int32_t frugal_error_code(const frugal_error* error);

/**
 * Returns the message of `error`: NUL-terminated UTF-8, owned by the error,
 * valid until frugal_error_destroy(error). Returns "" (static storage) when
 * error is NULL. Thread-safe.
 */
FRUGAL_API const char* frugal_error_message(const frugal_error* error);

/**
 * Returns the stable name of an error code ("OK", "INVALID_ARGUMENT", ...),
 * or "UNKNOWN" for a value this library does not know. Static storage.
 * Thread-safe.
 */
FRUGAL_API const char* frugal_error_code_name(int32_t code);

/**
 * Destroys an error object. NULL is allowed and does nothing. Destroying
 * the same error twice is undefined behaviour. Must not run concurrently
 * with any other use of the same error; the message returned by
 * frugal_error_message(error) becomes invalid.
 */
FRUGAL_API void frugal_error_destroy(frugal_error* error);

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_ERROR_H_ */
