// Shared fixtures for tests that load plugins.
#pragma once

#include <string>
#include <vector>

#include "frugal/sdk/host.hpp"

namespace frugal::test {

// A log message captured from a context.
struct LogLine {
  int level;
  std::string source;
  std::string message;
};

// A context whose log goes to `lines` instead of stderr (all levels).
struct CapturingContext {
  host::ContextPtr context;
  std::vector<LogLine> lines;

  CapturingContext();
  bool logged(const std::string& needle) const;
};

// Path of a test plugin variant, e.g. plugin_path("alpha").
std::string plugin_path(const std::string& variant);

// Path of a built-in plugin, e.g. builtin_path("schedule_lr").
std::string builtin_path(const std::string& name);

// Calls `f` (returning frugal_error*) and returns {code, message}; code 0 = success.
struct Outcome {
  int code;
  std::string message;
};
Outcome outcome(frugal_error* error);

// True while a shared object whose path ends with `file_name` is mapped into this process.
bool is_mapped(const std::string& file_name);

// The learning rate of a fresh schedule `name` at `step`; throws host::Exception.
double lr_of(frugal_context* context, const char* name, int64_t step, const frugal_options* options = nullptr);

}  // namespace frugal::test
