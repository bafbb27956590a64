/*
 * frugal/version.h — version numbers of the frugal C ABI and of the SDK.
 *
 * Two numbers matter and they move independently:
 *   - the ABI version (major.minor) is the contract between libfrugal, host
 *     applications and plugins. A different major is a break: libfrugal refuses
 *     plugins of another major, and the library SONAME carries the major.
 *     A new minor only appends (new functions, new trailing struct fields, new
 *     enum values, new table slots) and is accepted in both directions.
 *   - the SDK version (major.minor.patch) names a release of this project.
 *
 * The values below are the ones this header describes. The values of the
 * library actually loaded at run time come from frugal_abi_version() and
 * frugal_version_string() (see frugal/context.h); a host compares both.
 *
 * This header is C99 and C++ clean and declares nothing but macros.
 */
#ifndef FRUGAL_VERSION_H_
#define FRUGAL_VERSION_H_

/* ======================================================================== */
/* ABI version                                                              */
/* ======================================================================== */

/** Major version of the ABI described by these headers. Another major = break. */
#define FRUGAL_ABI_VERSION_MAJOR 2
/** Minor version of the ABI described by these headers. Append-only changes. */
#define FRUGAL_ABI_VERSION_MINOR 4
/** Packed ABI version: (major << 16) | minor, as returned by frugal_abi_version(). */
#define FRUGAL_ABI_VERSION ((FRUGAL_ABI_VERSION_MAJOR << 16) | FRUGAL_ABI_VERSION_MINOR)

/** Extracts the major from a packed ABI version. */
#define FRUGAL_ABI_VERSION_GET_MAJOR(v) (((v) >> 16) & 0xFFFF)
/** Extracts the minor from a packed ABI version. */
#define FRUGAL_ABI_VERSION_GET_MINOR(v) ((v)&0xFFFF)

/* ======================================================================== */
/* SDK release version                                                      */
/* ======================================================================== */

/** Major version of the SDK release these headers belong to. */
#define FRUGAL_VERSION_MAJOR 0
/** Minor version of the SDK release these headers belong to. */
#define FRUGAL_VERSION_MINOR 6
/** Patch version of the SDK release these headers belong to. */
#define FRUGAL_VERSION_PATCH 0
/** The SDK release as a string literal, "major.minor.patch". */
#define FRUGAL_VERSION_STRING "0.6.0"

#endif /* FRUGAL_VERSION_H_ */
