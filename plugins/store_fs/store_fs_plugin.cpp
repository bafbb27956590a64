// The store_fs plugin: strategy "fs" of kind FRUGAL_KIND_STORE, the
// embedded default checkpoint store. Vtable adapters and the entry point;
// every adapter runs inside sdk::guard so no exception crosses the ABI.
#include <memory>

#include "frugal/sdk/plugin_support.hpp"
#include "frugal/store_vtable.h"
#include "fs_store.hpp"

namespace {

using frugal::sdk::guard;
using frugal::sdk::PluginError;
using frugal::store_fs::FsConfig;
using frugal::store_fs::FsStore;

// What the core holds as the opaque store handle.
struct Handle {
  const frugal_host_api* host;
  FsStore store;
};

Handle& handle_of(void* store) { return *static_cast<Handle*>(store); }

frugal_error* open(const frugal_host_api* host, const frugal_options* options, void** out) {
  return guard(host, [&] {
    if (out == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "open: store is NULL");
    // Built in place: FsStore holds atomics and cannot move.
    *out = new Handle{host, FsStore(FsConfig::from(frugal::sdk::Options(host, options)))};
  });
}

void close(void* store) { delete static_cast<Handle*>(store); }

frugal_error* put(void* store, const char* key, const void* data, uint64_t size) {
  Handle& h = handle_of(store);
  return guard(h.host, [&] { h.store.put(key, data, size); });
}

frugal_error* size(void* store, const char* key, uint64_t* out) {
  Handle& h = handle_of(store);
  return guard(h.host, [&] {
    if (out == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "size: size is NULL");
    *out = h.store.size(key);
  });
}

frugal_error* read(void* store, const char* key, uint64_t offset, void* dst, uint64_t length) {
  Handle& h = handle_of(store);
  return guard(h.host, [&] { h.store.read(key, offset, dst, length); });
}

frugal_error* list(void* store, const char* prefix, frugal_store_list_fn fn, void* user_data) {
  Handle& h = handle_of(store);
  return guard(h.host, [&] { h.store.list(prefix, fn, user_data); });
}

frugal_error* remove(void* store, const char* key) {
  Handle& h = handle_of(store);
  return guard(h.host, [&] { h.store.remove(key); });
}

constexpr frugal_store_vtable kVtable{sizeof(frugal_store_vtable), &open, &close, &put, &size, &read, &list, &remove};

constexpr frugal_strategy_desc kFs{
    sizeof(frugal_strategy_desc),
    FRUGAL_KIND_STORE,
    FRUGAL_STRATEGY_THREAD_SAFE,  // different keys from many threads at once
    "fs",
    "checkpoint store on a local or shared POSIX filesystem: atomic, durable puts (options: root, fsync, "
    "inject_enospc_after_bytes)",
    &kVtable,
    nullptr,
};

constexpr const frugal_strategy_desc* kStrategies[] = {&kFs};

constexpr frugal_plugin_desc kPlugin{
    sizeof(frugal_plugin_desc),
    FRUGAL_ABI_VERSION_MAJOR,
    FRUGAL_ABI_VERSION_MINOR,
    "store_fs",
    FRUGAL_VERSION_STRING,
    "frugal",
    "MIT",
    sizeof(kStrategies) / sizeof(kStrategies[0]),
    kStrategies,
    "Checkpoint store on a POSIX filesystem: temp file + fsync + rename + directory fsync per object; "
    "keys never leave the root and symbolic links are never followed",
    nullptr,
    nullptr,
};

}  // namespace

extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* frugal_plugin_init_v1(const frugal_host_api* host,
                                                                    const frugal_plugin_desc** out) {
  return frugal::sdk::hand_over_descriptor(host, out, kPlugin);
}
