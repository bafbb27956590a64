// Error objects behind the C ABI, and the guard that keeps C++ exceptions
// from ever crossing it. Internal to libfrugal.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "frugal/types.h"

// The opaque type named in frugal/types.h. `is_static` marks the single
// preallocated out-of-memory error, which destroy must not free.
struct frugal_error {
  int32_t code;
  std::string message;
  bool is_static = false;
};

namespace frugal {

// Thrown inside libfrugal; converted to a frugal_error* at the boundary.
class Error : public std::exception {
 public:
  Error(int32_t code, std::string message) : code_(code), message_(std::move(message)) {}
  [[nodiscard]] int32_t code() const noexcept { return code_; }
  [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }

 private:
  int32_t code_;
  std::string message_;
};

// Throws frugal::Error with a fmt-formatted message.
template <typename... Args>
[[noreturn]] void fail(int32_t code, fmt::format_string<Args...> format, Args&&... args) {
  throw Error(code, fmt::format(format, std::forward<Args>(args)...));
}

// Allocates an error object; never returns NULL (falls back to the static OOM error).
frugal_error* make_error(int32_t code, std::string_view message) noexcept;

// Converts the exception being handled into an error object. Call only
// inside a catch block; `where` names the entry point for INTERNAL errors.
frugal_error* current_exception_to_error(const char* where) noexcept;

// Takes ownership of a plugin- or core-made error and rethrows it as
// frugal::Error with `prefix` prepended to its message. No-op for NULL.
void rethrow_if_error(frugal_error* error, std::string_view prefix);

// Runs `body` (returning void) and turns any exception into an error; the
// catch-all every exported function goes through.
template <typename Body>
frugal_error* guard(const char* where, Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (...) {
    return current_exception_to_error(where);
  }
}

// The catch-all for entry points without an error channel (counts,
// lookups): any exception yields `fallback` instead of crossing the ABI.
template <typename T, typename Body>
T guard_value(T fallback, Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return fallback;
  }
}

// Fails with INVALID_ARGUMENT when a required pointer argument is NULL.
inline void require_non_null(const void* pointer, const char* function, const char* argument) {
  if (pointer == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: argument '{}' must not be NULL", function, argument);
}

}  // namespace frugal
