/*
 * frugal/store_vtable.h — the vtable of FRUGAL_KIND_STORE strategies:
 * checkpoint storage backends (a local or shared filesystem, an object
 * store, ...), implemented by plugins and called by the core.
 *
 * A store holds objects named by keys. A key is 1..1024 bytes of
 * '/'-separated components; each component is 1..255 bytes of
 * [A-Za-z0-9_.-] and does not start with '.' (so "." and ".." can never
 * appear, and names starting with '.' stay free for a backend's temporary
 * files). The core validates keys before every call; a backend must
 * validate them again, because no key may ever reach outside its root.
 *
 * Sizes. What a call moves through host memory (put's `size`, read's
 * `length`) is a size_t; an object's size and an offset into it (size,
 * read's `offset`, the listing's `size`) are uint64_t, because stored
 * objects may exceed what one process can address (a 32-bit host reading
 * a large shard in pieces).
 *
 * Declares no function; safe for plugins.
 */
#ifndef FRUGAL_STORE_VTABLE_H_
#define FRUGAL_STORE_VTABLE_H_

#include "frugal/plugin.h"
#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Callbacks                                                                */
/* ======================================================================== */

/**
 * Receives one key during a listing.
 *   user_data: as given to list; never dereferenced by the store.
 *   key:       valid during the call only.
 *   size:      the object's size in bytes.
 * Returns 0 to continue, nonzero to stop the listing early (not an error).
 */
typedef int32_t (*frugal_store_list_fn)(void* user_data, const char* key, uint64_t size);

/* ======================================================================== */
/* Vtable                                                                   */
/* ======================================================================== */

/**
 * Table of a store strategy. Owned by the plugin (static), valid until
 * unload. Every v2.0 slot is required. Errors are made with the host
 * table's error_create; I/O failures use FRUGAL_ERR_IO and name the key and
 * the operating system's reason (e.g. "No space left on device"). No slot
 * may throw. A created store may be used from several threads at once, on
 * different keys; calls on the same key are serialised by the caller.
 */
typedef struct frugal_store_vtable {
  /** sizeof(frugal_store_vtable) as built by the plugin. */
  size_t struct_size;

  /**
   * Creates a store instance (opens the backend).
   *   host:    the plugin's host table.
   *   options: backend configuration (e.g. "root" for a filesystem), read
   *            during the call only; NULL means none given (a backend may
   *            require some, as store_fs requires "root").
   *   store:   // out, opaque plugin-owned handle, released by destroy.
   */
  frugal_error* (*create)(const frugal_host_api* host, const frugal_options* options, void** store);

  /** Destroys (closes) a store made by create. The core never passes NULL. */
  void (*destroy)(void* store);

  /**
   * Writes `size` bytes as object `key`, atomically and durably: once put
   * returns success the object survives a crash or power loss, and a crash
   * at any moment during put leaves either the previous object (or none)
   * or the complete new one, never a mix. Replaces an existing object.
   * `data` may be NULL when size is 0. Because remove() deletes emptied
   * directories and other keys may be removed concurrently, put must cope
   * with its parent directory vanishing under it (recreate and retry).
   * A put killed midway may leave a temporary file; the backend reclaims it
   * later (store_fs: on remove, or on list, once its writer is dead).
   */
  frugal_error* (*put)(void* store, const char* key, const void* data, size_t size);

  /**
   * The size of object `key`.
   *   size: // out.
   * FRUGAL_ERR_NOT_FOUND when there is no such object.
   */
  frugal_error* (*size)(void* store, const char* key, uint64_t* size);

  /**
   * Reads `length` bytes of object `key` from `offset` into `dst`.
   * FRUGAL_ERR_NOT_FOUND when absent; FRUGAL_ERR_OUT_OF_RANGE when the
   * object is shorter than offset + length.
   */
  frugal_error* (*read)(void* store, const char* key, uint64_t offset, void* dst, size_t length);

  /**
   * Lists every object whose key starts with `prefix` ("" lists all), in
   * lexicographic key order, never including a backend's temporary files.
   * `prefix` is matched byte by byte (it may end mid-component) and is never
   * used as a path. A backend may reclaim temporary files abandoned by dead
   * writers while listing; it never changes an object.
   */
  frugal_error* (*list)(void* store, const char* prefix, frugal_store_list_fn fn, void* user_data);

  /**
   * Removes object `key`; removing an absent key succeeds. A backend with
   * directories removes ones left empty, up to (not including) its root.
   */
  frugal_error* (*remove)(void* store, const char* key);
} frugal_store_vtable;

/** Bytes of frugal_store_vtable a core requires (through `remove`). */
#define FRUGAL_STORE_VTABLE_MIN_SIZE (offsetof(frugal_store_vtable, remove) + sizeof(void*))

/** Longest valid key, in bytes. */
#define FRUGAL_STORE_KEY_MAX 1024

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_store_vtable, create) == 8, store_create);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_store_vtable, destroy) == 16, store_destroy);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_store_vtable, put) == 24, store_put);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_store_vtable, size) == 32, store_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_store_vtable, read) == 40, store_read);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_store_vtable, list) == 48, store_list);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_store_vtable, remove) == 56, store_remove);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_store_vtable) == 64, store_vtable_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_STORE_VTABLE_H_ */
