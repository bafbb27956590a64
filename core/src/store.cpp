// frugal_store: host-side handles over store plugins, with key validation
// in front of every backend call (defence in depth: backends check too).
#include "store.hpp"

#include <exception>

#include "context.hpp"
#include "error.hpp"
#include "frugal/store.h"
#include "plugin_call.hpp"

namespace frugal {

void check_store_key(std::string_view key) {
  if (key.empty() || key.size() > FRUGAL_STORE_KEY_MAX)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "store key must be 1..{} bytes, got {}", FRUGAL_STORE_KEY_MAX, key.size());
  size_t start = 0;
  while (start <= key.size()) {
    const size_t slash = key.find('/', start);
    const std::string_view part = key.substr(start, slash == std::string_view::npos ? key.npos : slash - start);
    if (part.empty()) fail(FRUGAL_ERR_INVALID_ARGUMENT, "store key '{}' has an empty component", key);
    if (part.size() > 255) fail(FRUGAL_ERR_INVALID_ARGUMENT, "store key '{}' has a component over 255 bytes", key);
    if (part[0] == '.') fail(FRUGAL_ERR_INVALID_ARGUMENT, "store key '{}': component '{}' starts with '.'", key, part);
    for (const char c : part) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                      c == '.' || c == '-';
      if (!ok)
        fail(FRUGAL_ERR_INVALID_ARGUMENT, "store key '{}': component '{}' has a character outside [A-Za-z0-9_.-]", key,
             part);
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
}

Store::Store(std::shared_ptr<LoadedPlugin> plugin, const StrategyRecord& record, const frugal_options* options,
             std::string label)
    : instance_(std::move(plugin), record, std::move(label)) {
  instance_.create(options);
}

void Store::put(const std::string& key, const void* data, size_t size) const {
  check_store_key(key);
  if (data == nullptr && size > 0) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: put '{}': data is NULL", label(), key);
  instance_.call(&frugal_store_vtable::put, key.c_str(), data, size);
}

uint64_t Store::size(const std::string& key) const {
  check_store_key(key);
  uint64_t size = 0;
  instance_.call(&frugal_store_vtable::size, key.c_str(), &size);
  return size;
}

std::optional<uint64_t> Store::size_if_present(const std::string& key) const {
  try {
    return size(key);
  } catch (const Error& e) {
    if (e.code() == FRUGAL_ERR_NOT_FOUND) return std::nullopt;
    throw;
  }
}

void Store::read(const std::string& key, uint64_t offset, void* dst, size_t length) const {
  check_store_key(key);
  if (dst == nullptr && length > 0) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: read '{}': dst is NULL", label(), key);
  instance_.call(&frugal_store_vtable::read, key.c_str(), offset, dst, length);
}

void Store::list(const std::string& prefix, const std::function<bool(const std::string&, uint64_t)>& visit) const {
  struct Visitor {
    const std::function<bool(const std::string&, uint64_t)>* visit;
    std::exception_ptr failure;  // an exception from `visit` must not unwind through the plugin
  } visitor{&visit, nullptr};
  auto trampoline = [](void* user_data, const char* key, uint64_t size) -> int32_t {
    auto* v = static_cast<Visitor*>(user_data);
    try {
      return (*v->visit)(key, size) ? 0 : 1;
    } catch (...) {
      v->failure = std::current_exception();
      return 1;
    }
  };
  instance_.call(&frugal_store_vtable::list, prefix.c_str(), trampoline, &visitor);
  if (visitor.failure) std::rethrow_exception(visitor.failure);
}

void Store::remove(const std::string& key) const {
  check_store_key(key);
  instance_.call(&frugal_store_vtable::remove, key.c_str());
}

}  // namespace frugal

using frugal::guard;
using frugal::require_non_null;

namespace {

frugal::Store& impl_of(frugal_store* store, const char* function) {
  require_non_null(store, function, "store");
  return *store->impl;
}

}  // namespace

extern "C" {

FRUGAL_API frugal_error* frugal_store_create(frugal_context* context, const char* name, const frugal_options* options,
                                             frugal_store** out) {
  return guard("frugal_store_create", [&] {
    require_non_null(out, "frugal_store_create", "out");
    auto resolved = frugal::resolve_strategy(context, FRUGAL_KIND_STORE, name);
    auto store = std::make_unique<frugal_store>();
    store->impl =
        std::make_shared<frugal::Store>(resolved.plugin, *resolved.record, options, fmt::format("store '{}'", name));
    *out = store.release();
  });
}

FRUGAL_API void frugal_store_destroy(frugal_store* store) { delete store; }

FRUGAL_API frugal_error* frugal_store_put(frugal_store* store, const char* key, const void* data, size_t size) {
  return guard("frugal_store_put", [&] {
    require_non_null(key, "frugal_store_put", "key");
    impl_of(store, "frugal_store_put").put(key, data, size);
  });
}

FRUGAL_API frugal_error* frugal_store_size(frugal_store* store, const char* key, uint64_t* size) {
  return guard("frugal_store_size", [&] {
    require_non_null(key, "frugal_store_size", "key");
    require_non_null(size, "frugal_store_size", "size");
    *size = impl_of(store, "frugal_store_size").size(key);
  });
}

FRUGAL_API frugal_error* frugal_store_read(frugal_store* store, const char* key, uint64_t offset, void* dst,
                                           size_t length) {
  return guard("frugal_store_read", [&] {
    require_non_null(key, "frugal_store_read", "key");
    impl_of(store, "frugal_store_read").read(key, offset, dst, length);
  });
}

FRUGAL_API frugal_error* frugal_store_list(frugal_store* store, const char* prefix, frugal_store_list_fn fn,
                                           void* user_data) {
  return guard("frugal_store_list", [&] {
    require_non_null(prefix, "frugal_store_list", "prefix");
    require_non_null(reinterpret_cast<const void*>(fn), "frugal_store_list", "fn");
    impl_of(store, "frugal_store_list").list(prefix, [&](const std::string& key, uint64_t size) {
      return fn(user_data, key.c_str(), size) == 0;
    });
  });
}

FRUGAL_API frugal_error* frugal_store_remove(frugal_store* store, const char* key) {
  return guard("frugal_store_remove", [&] {
    require_non_null(key, "frugal_store_remove", "key");
    impl_of(store, "frugal_store_remove").remove(key);
  });
}

FRUGAL_API frugal_error* frugal_store_check_key(const char* key) {
  return guard("frugal_store_check_key", [&] {
    require_non_null(key, "frugal_store_check_key", "key");
    frugal::check_store_key(key);
  });
}

}  // extern "C"
