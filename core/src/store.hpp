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
#include "strategy_instance.hpp"

namespace frugal {

// Throws INVALID_ARGUMENT naming the offending part of `key`.
void check_store_key(std::string_view key);

class Store {
 public:
  // Opens strategy `record` of `plugin` with `options` (checked against its
  // declarations first); throws on failure.
  Store(std::shared_ptr<LoadedPlugin> plugin, const StrategyRecord& record, const frugal_options* options,
        std::string label);

  // All throw frugal::Error prefixed with the label ("store 'fs': ...").
  void put(const std::string& key, const void* data, size_t size) const;
  [[nodiscard]] uint64_t size(const std::string& key) const;
  [[nodiscard]] std::optional<uint64_t> size_if_present(const std::string& key) const;  // nullopt for NOT_FOUND
  void read(const std::string& key, uint64_t offset, void* dst, size_t length) const;
  // Calls `visit(key, size)` in key order; `visit` returns false to stop.
  void list(const std::string& prefix, const std::function<bool(const std::string&, uint64_t)>& visit) const;
  void remove(const std::string& key) const;

  [[nodiscard]] const std::string& label() const { return instance_.label(); }

  // Logs through the host's sink, prefixed with the label.
  void log(int32_t level, const std::string& message) const { instance_.log(level, message); }

 private:
  StrategyInstance<frugal_store_vtable> instance_;  // an open handle, labelled "store 'fs'"
};

}  // namespace frugal

struct frugal_store {
  std::shared_ptr<frugal::Store> impl;
};
