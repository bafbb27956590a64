#include "os_error.hpp"

#include <cstring>

#include "frugal/sdk/plugin_support.hpp"

namespace frugal::store_fs {
namespace {

// glibc offers the GNU strerror_r (returns char*) under _GNU_SOURCE and the
// XSI one (returns int) otherwise; these overloads accept either.
[[maybe_unused]] std::string reason_from(const char* result, const char*) { return result; }
[[maybe_unused]] std::string reason_from(int result, const char* buffer) {
  return result == 0 ? std::string(buffer) : std::string("unknown error");
}

}  // namespace

std::string os_reason(int err) {
  char buffer[256] = {};
  return reason_from(strerror_r(err, buffer, sizeof buffer), buffer);
}

void fail(int32_t code, std::string message) { throw sdk::PluginError(code, std::move(message)); }

void fail_io(std::string_view what, int err) { fail(FRUGAL_ERR_IO, std::string(what) + ": " + os_reason(err)); }

std::string op_key(std::string_view op, std::string_view key) {
  std::string text(op);
  text += " '";
  text += key;
  text += "'";
  return text;
}

}  // namespace frugal::store_fs
