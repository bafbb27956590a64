// Where log messages go: the host's callback, or stderr by default.
// Shared (by shared_ptr) between a context and the plugins it loaded, so a
// plugin that outlives its context still has somewhere safe to log.
#pragma once

#include <cstdint>
#include <mutex>
#include <string_view>

#include "frugal/context.h"

namespace frugal {

class LogSink {
 public:
  LogSink();

  // Replaces the destination; callback NULL silences everything.
  void set(frugal_log_fn callback, void* user_data, int32_t min_level);

  // True when a message at `level` would be delivered (check before formatting).
  bool enabled(int32_t level) const;

  // Delivers one message; never throws.
  void write(int32_t level, std::string_view source, std::string_view message) const noexcept;

 private:
  mutable std::mutex mutex_;
  frugal_log_fn callback_;
  void* user_data_ = nullptr;
  int32_t min_level_;
};

}  // namespace frugal
