/*
 * frugal/store.h — storage backend objects (host side).
 *
 * A frugal_store is an open instance of a FRUGAL_KIND_STORE strategy
 * ("fs" from the store_fs plugin is the embedded default). Checkpoint
 * engines write through it; hosts and tools may use it directly. It keeps
 * its plugin loaded until it and every engine using it are destroyed.
 *
 * Keys follow the rules of frugal/store_vtable.h; a key that breaks them is
 * refused with FRUGAL_ERR_INVALID_ARGUMENT before the backend sees it.
 *
 * Thread safety: calls on different keys may run concurrently; calls on one
 * key are serialised by the caller.
 */
#ifndef FRUGAL_STORE_H_
#define FRUGAL_STORE_H_

#include "frugal/store_vtable.h"
#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Store objects                                                            */
/* ======================================================================== */

/** A storage backend instance; created with frugal_store_create, released with frugal_store_destroy. */
typedef struct frugal_store frugal_store;

/**
 * Creates a store (opens the backend).
 *   context: a context with the providing plugin loaded; not NULL.
 *   name:    strategy name ("fs" or "plugin/name"); not NULL.
 *   options: backend configuration (for "fs": "root", required; "fsync",
 *            default true), read during the call only. NULL means none
 *            given, which "fs" refuses for want of "root".
 *   out:     // out, owned by the caller; release with frugal_store_destroy.
 * Backend errors are prefixed with "store 'name': ".
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_store_create(frugal_context* context, const char* name,
                                                              const frugal_options* options, frugal_store** out);

/**
 * Releases the caller's handle. Engines created on the store keep it open
 * until they are destroyed. NULL allowed.
 */
FRUGAL_API void frugal_store_destroy(frugal_store* store);

/** Atomically and durably writes object `key` (see frugal_store_vtable.put). */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_store_put(frugal_store* store, const char* key, const void* data,
                                                           size_t size);

/**
 * The size of object `key`.
 *   size: // out. FRUGAL_ERR_NOT_FOUND when absent.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_store_size(frugal_store* store, const char* key, uint64_t* size);

/**
 * Reads bytes [offset, offset + length) of object `key` into `dst`
 * (caller-owned, at least `length` bytes; NULL only when length is 0).
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_store_read(frugal_store* store, const char* key, uint64_t offset,
                                                            void* dst, size_t length);

/**
 * Calls `fn` for every object whose key starts with `prefix` ("" for all),
 * in key order. `fn` may stop early by returning nonzero.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_store_list(frugal_store* store, const char* prefix,
                                                            frugal_store_list_fn fn, void* user_data);

/** Removes object `key`; an absent key is not an error. */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_store_remove(frugal_store* store, const char* key);

/**
 * Checks a key against the rules of frugal/store_vtable.h. Returns NULL or
 * FRUGAL_ERR_INVALID_ARGUMENT naming the offending component.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_store_check_key(const char* key);

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_STORE_H_ */
