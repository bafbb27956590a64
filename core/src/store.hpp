// An open storage backend (a FRUGAL_KIND_STORE strategy instance), shared
// by the host's frugal_store handle and every checkpoint engine using it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "frugal/store_vtable.h"
#include "loaded_plugin.hpp"

namespace frugal {

// Throws INVALID_ARGUMENT naming the offending part of `key`.
void check_store_key(std::string_view key);

class Store {
 public:
  // Opens strategy `record` of `plugin` with `options`; throws on failure.
  Store(std::shared_ptr<LoadedPlugin> plugin, const StrategyRecord& record, const frugal_options* options,
        std::string label);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // All throw frugal::Error prefixed with the label ("store 'fs': ...").
  void put(const std::string& key, const void* data, uint64_t size) const;
  uint64_t size(const std::string& key) const;
  std::optional<uint64_t> size_if_present(const std::string& key) const;  // nullopt for NOT_FOUND
  void read(const std::string& key, uint64_t offset, void* dst, uint64_t length) const;
  // Calls `visit(key, size)` in key order; `visit` returns false to stop.
  void list(const std::string& prefix, const std::function<bool(const std::string&, uint64_t)>& visit) const;
  void remove(const std::string& key) const;

  const std::string& label() const { return label_; }

  // Logs through the host's sink, prefixed with the label.
  void log(int32_t level, const std::string& message) const { plugin_->log(level, label_ + ": " + message); }

 private:
  std::shared_ptr<LoadedPlugin> plugin_;  // keeps the vtable's code mapped
  frugal_store_vtable vtable_{};
  void* handle_ = nullptr;
  std::string label_;
};

}  // namespace frugal

struct frugal_store {
  std::shared_ptr<frugal::Store> impl;
};
