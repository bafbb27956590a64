/*
 * frugal/platform.h — linkage and layout-checking macros shared by every
 * frugal header. Nothing here is a type or a function of the ABI.
 *
 * C99 and C++ clean. C99 has no _Static_assert, so layout checks use the
 * negative-array-size idiom, which every C and C++ compiler rejects at
 * compile time when the condition is false.
 */
#ifndef FRUGAL_PLATFORM_H_
#define FRUGAL_PLATFORM_H_

#include <stddef.h>
#include <stdint.h>

/* ======================================================================== */
/* Linkage                                                                  */
/* ======================================================================== */

#ifdef __cplusplus
/** Opens a block of C-linkage declarations (no-op in C). */
#define FRUGAL_EXTERN_C_BEGIN extern "C" {
/** Closes a block opened by FRUGAL_EXTERN_C_BEGIN. */
#define FRUGAL_EXTERN_C_END }
#else
#define FRUGAL_EXTERN_C_BEGIN
#define FRUGAL_EXTERN_C_END
#endif

/**
 * Marks a function exported by libfrugal. libfrugal is built with hidden
 * visibility and a version script; only functions carrying this marker and
 * named frugal_* leave the library.
 */
#if defined(_WIN32)
#define FRUGAL_API __declspec(dllexport)
#elif defined(__GNUC__)
#define FRUGAL_API __attribute__((visibility("default")))
#else
#define FRUGAL_API
#endif

/**
 * Marks a function whose result must not be dropped: every function that
 * returns a frugal_error*. An ignored error is a failure nobody sees and a
 * leak (the caller owns it), so a host that drops one gets a compiler
 * warning. C++17 and later use [[nodiscard]] (silenced, where that is
 * really meant, by a cast to void); GCC and Clang in C use
 * warn_unused_result, which even a cast does not silence: destroy the error.
 */
#if defined(__cplusplus) && __cplusplus >= 201703L
#define FRUGAL_NODISCARD [[nodiscard]]
#elif defined(__GNUC__)
#define FRUGAL_NODISCARD __attribute__((warn_unused_result))
#else
#define FRUGAL_NODISCARD
#endif

/**
 * Marks the single symbol a plugin exports (its entry point). Plugins are
 * built with hidden visibility, so nothing else of theirs is visible.
 */
#define FRUGAL_PLUGIN_EXPORT FRUGAL_API

/* ======================================================================== */
/* Layout assertions                                                        */
/* ======================================================================== */

/** Internal: token pasting for FRUGAL_LAYOUT_ASSERT; not part of the ABI. */
#define FRUGAL_CONCAT_INNER_(a, b) a##b
#define FRUGAL_CONCAT_(a, b) FRUGAL_CONCAT_INNER_(a, b)

/**
 * FRUGAL_LAYOUT_ASSERT(cond, tag): fails compilation when cond is false.
 * tag must be an identifier unique within the header that uses it.
 */
#ifdef __cplusplus
#define FRUGAL_LAYOUT_ASSERT(cond, tag) static_assert(cond, #tag)
#else
#define FRUGAL_LAYOUT_ASSERT(cond, tag) typedef char FRUGAL_CONCAT_(frugal_layout_assert_, tag)[(cond) ? 1 : -1]
#endif

/**
 * Nonzero on the LP64 data model (64-bit pointers and size_t), the only one
 * the layout assertions pin today. On other models the assertions are
 * skipped, not wrong: offsets there follow the C rules for the same field
 * order and the same fixed-width types.
 */
#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu && SIZE_MAX == 0xFFFFFFFFFFFFFFFFu
#define FRUGAL_LP64 1
#else
#define FRUGAL_LP64 0
#endif

#endif /* FRUGAL_PLATFORM_H_ */
