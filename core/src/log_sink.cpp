#include "log_sink.hpp"

#include <cstdio>
#include <string>

namespace frugal {
namespace {

const char* level_name(int32_t level) {
  switch (level) {
    case FRUGAL_LOG_TRACE: return "trace";
    case FRUGAL_LOG_DEBUG: return "debug";
    case FRUGAL_LOG_INFO: return "info";
    case FRUGAL_LOG_WARN: return "warning";
    default: return "error";
  }
}

// Default sink: one line per message on stderr.
void stderr_sink(void*, int32_t level, const char* source, const char* message) {
  std::fprintf(stderr, "frugal [%s] %s: %s\n", level_name(level), source, message);
}

}  // namespace

LogSink::LogSink() : callback_(&stderr_sink), min_level_(FRUGAL_LOG_WARN) {}

void LogSink::set(frugal_log_fn callback, void* user_data, int32_t min_level) {
  std::lock_guard lock(mutex_);
  callback_ = callback;
  user_data_ = user_data;
  min_level_ = min_level;
}

bool LogSink::enabled(int32_t level) const {
  std::lock_guard lock(mutex_);
  return callback_ != nullptr && level >= min_level_ && level < FRUGAL_LOG_OFF;
}

void LogSink::write(int32_t level, std::string_view source, std::string_view message) const noexcept {
  try {
    frugal_log_fn callback = nullptr;
    void* user_data = nullptr;
    {
      std::lock_guard lock(mutex_);
      if (callback_ == nullptr || level < min_level_ || level >= FRUGAL_LOG_OFF) return;
      callback = callback_;
      user_data = user_data_;
    }
    // Called outside the lock so a slow or re-entrant sink cannot deadlock us.
    const std::string source_copy(source), message_copy(message);
    callback(user_data, level, source_copy.c_str(), message_copy.c_str());
  } catch (...) {
    // Logging must never turn into a failure of the operation being logged.
  }
}

}  // namespace frugal
