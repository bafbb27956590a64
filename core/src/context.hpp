// The context behind frugal_context: loaded plugins, load failures, the
// (kind, name) registry and the log sink. Internal to libfrugal.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "loaded_plugin.hpp"
#include "log_sink.hpp"

struct frugal_context {
  struct Failure {
    std::string path;
    std::string message;
    int32_t code;
  };
  // Which plugin owns a short (kind, name); later duplicates are shadowed.
  struct Owner {
    size_t plugin_index;
    size_t strategy_index;
  };

  mutable std::mutex mutex;
  std::shared_ptr<frugal::LogSink> log = std::make_shared<frugal::LogSink>();
  std::vector<std::string> host_dirs;
  std::vector<std::shared_ptr<frugal::LoadedPlugin>> plugins;
  std::deque<Failure> failures;  // a deque: handed-out strings must not move on push_back
  std::map<std::pair<int32_t, std::string>, Owner> owners;
};

namespace frugal {

// A strategy found in a context, holding its plugin loaded.
struct ResolvedStrategy {
  std::shared_ptr<LoadedPlugin> plugin;
  const StrategyRecord* record = nullptr;
};

// Looks up "name" or "plugin/name" of `kind`; throws NOT_FOUND listing what exists.
ResolvedStrategy resolve_strategy(const frugal_context* context, int32_t kind, const char* name);

}  // namespace frugal
