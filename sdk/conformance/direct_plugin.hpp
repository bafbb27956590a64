// direct_plugin.hpp — a plugin loaded by the conformance kit itself, not by
// the core, so its vtable slots can be called with arguments the core would
// never pass (NULL, undersized structs), through a host table whose
// allocator counts what the plugin has not freed.
#pragma once
#include <atomic>
#include <cstddef>
#include <string>

#include "frugal/frugal.h"
#include "frugal/plugin.h"

namespace frugal::conformance {

class DirectPlugin {
 public:
  // dlopen + frugal_plugin_init_v2. Throws std::runtime_error naming the
  // file and what failed.
  explicit DirectPlugin(const std::string& path);
  // Calls on_unload and dlcloses.
  ~DirectPlugin();
  DirectPlugin(const DirectPlugin&) = delete;
  DirectPlugin& operator=(const DirectPlugin&) = delete;

  [[nodiscard]] const frugal_host_api* host() const { return &host_; }
  [[nodiscard]] const frugal_plugin_desc* descriptor() const { return desc_; }
  // The strategy of `kind` named `name`, or NULL.
  [[nodiscard]] const frugal_strategy_desc* strategy(int32_t kind, const std::string& name) const;
  // Calls on_unload and dlcloses now (idempotent); after it, outstanding()
  // is what the plugin leaked.
  void unload();
  // host->alloc blocks not yet given back to host->free.
  static long outstanding();

 private:
  void* handle_ = nullptr;
  frugal_host_api host_{};
  const frugal_plugin_desc* desc_ = nullptr;
};

}  // namespace frugal::conformance
