#include "store_key.hpp"

#include <string>

#include "frugal/store_vtable.h"
#include "os_error.hpp"

namespace frugal::store_fs {
namespace {

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

}  // namespace

bool is_valid_component(std::string_view name) {
  if (name.empty() || name.size() > 255 || name.front() == '.') return false;
  for (const char c : name)
    if (!is_key_char(c)) return false;
  return true;
}

std::vector<std::string_view> split_key(std::string_view op, std::string_view key) {
  const auto refuse = [&](const std::string& why) { fail(FRUGAL_ERR_INVALID_ARGUMENT, op_key(op, key) + ": " + why); };
  if (key.empty()) refuse("a key must not be empty");
  if (key.size() > FRUGAL_STORE_KEY_MAX)
    refuse("a key is at most " + std::to_string(FRUGAL_STORE_KEY_MAX) + " bytes, this one has " +
           std::to_string(key.size()));
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    const size_t slash = key.find('/', start);
    const std::string_view part =
        key.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part.empty()) refuse("empty component (keys are 'a/b/c': no leading, trailing or doubled '/')");
    if (part.size() > 255) refuse("component of " + std::to_string(part.size()) + " bytes (at most 255)");
    if (part.front() == '.') refuse("component '" + std::string(part) + "' starts with '.'");
    if (!is_valid_component(part))
      refuse("component '" + std::string(part) + "' has a character outside [A-Za-z0-9_.-]");
    parts.push_back(part);
    if (slash == std::string_view::npos) return parts;
    start = slash + 1;
  }
}

}  // namespace frugal::store_fs
