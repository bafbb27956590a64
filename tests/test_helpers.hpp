// Shared fixtures for tests that load plugins.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <stdexcept>
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
// Background threads (a checkpoint engine's worker) may log while a test
// polls logged(): the capture and logged() take `mutex`. Read `lines`
// directly only when no engine is running.
struct CapturingContext {
  host::ContextPtr context;
  std::mutex mutex;
  std::vector<LogLine> lines;

  CapturingContext();
  CapturingContext(const CapturingContext&) = delete;  // its address is the log callback's user_data
  CapturingContext& operator=(const CapturingContext&) = delete;
  bool logged(const std::string& needle);
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

// Checks (Catch2) that `error` is not NULL, has `code`, and its message
// contains every string of `mentions`; destroys the error.
void expect_error(frugal_error* error, int code, std::initializer_list<const char*> mentions);

// The message of a probe plugin's deliberate failure (FRUGAL_ERR_CANCELLED,
// "echo: ..." describing the views the core handed over); REQUIREs both.
std::string probe_echo(frugal_error* error);

// True while a shared object whose path ends with `file_name` is mapped into this process.
bool is_mapped(const std::string& file_name);

// The learning rate of a fresh schedule `name` at `step`; throws host::Exception.
double lr_of(frugal_context* context, const char* name, int64_t step, const frugal_options* options = nullptr);

// A loss scaler's status; throws host::Exception.
frugal_loss_scaler_status loss_scaler_status(const frugal_loss_scaler* scaler);

// A state through the kinds' two-call export (`call(buffer, capacity,
// size)`: the size query, then the copy); throws when a call fails or the
// copy wrote another size than the query said.
template <typename Export>
std::vector<uint8_t> exported_state(Export&& call) {
  size_t size = 0;
  host::check(call(nullptr, 0, &size));
  std::vector<uint8_t> blob(size);
  size_t written = 0;
  host::check(call(blob.data(), blob.size(), &written));
  if (written != size) throw std::runtime_error("export_state wrote another size than its query said");
  return blob;
}

}  // namespace frugal::test
