// frugal_options: typed named values, shared by the host C API and the
// option slots of the plugin host table (same functions, same rules).
#include "options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "comm/communicator.hpp"
#include "error.hpp"
#include "frugal/options.h"

namespace frugal {
namespace {

constexpr size_t kMaxOptionNameLength = 128;

void check_name(const char* name) {
  require_non_null(name, "frugal_options", "name");
  const size_t length = std::strlen(name);
  if (length == 0 || length > kMaxOptionNameLength)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "option name must be 1..{} bytes, got {}", kMaxOptionNameLength, length);
  for (size_t i = 0; i < length; ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    // Plain ASCII tests, not <cctype>: the rules must not change with the host's locale.
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!(alnum || c == '_' || c == '.' || c == '-'))
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "option name '{}' has a character outside [A-Za-z0-9_.-] at byte {}", name, i);
  }
}

// Stores `entry` under its name, replacing an existing value and type.
// Everything that can fail (name check, copies) happens before the options
// change, so a failed setter leaves them as they were.
void commit(frugal_options* options, frugal_options::Entry entry) {
  auto& entries = options->entries;
  auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.name == entry.name; });
  if (it != entries.end())
    *it = std::move(entry);  // moves cannot throw: the options stay intact
  else
    entries.push_back(std::move(entry));  // strong guarantee
}

frugal_options::Entry new_entry(frugal_options* options, const char* name, int32_t type) {
  require_non_null(options, "frugal_options_set", "options");
  check_name(name);
  frugal_options::Entry entry;
  entry.name = name;
  entry.type = type;
  return entry;
}

// Returns the entry for `name`, or nullptr when absent (NULL options are empty).
const frugal_options::Entry* find(const frugal_options* options, const char* name) {
  require_non_null(name, "frugal_options_get", "name");
  if (options == nullptr) return nullptr;
  for (const auto& e : options->entries)
    if (e.name == name) return &e;
  return nullptr;
}

[[noreturn]] void type_mismatch(const frugal_options::Entry& e, const char* wanted) {
  fail(FRUGAL_ERR_INVALID_ARGUMENT, "option '{}' has type {}; expected {}", e.name, option_type_name(e.type), wanted);
}

bool parse_int(const char* text, int64_t* out) {
  const char* end = text + std::strlen(text);
  auto [ptr, ec] = std::from_chars(text, end, *out);
  return ec == std::errc() && ptr == end && ptr != text;
}

// std::from_chars, unlike strtod, ignores the locale (a ',' decimal
// separator must not change what "0.5" means) and accepts inf and nan.
bool parse_double(const char* text, double* out) {
  const char* end = text + std::strlen(text);
  auto [ptr, ec] = std::from_chars(text, end, *out);
  return ec == std::errc() && ptr == end && ptr != text;
}

}  // namespace
}  // namespace frugal

using frugal::guard;

extern "C" {

FRUGAL_API frugal_error* frugal_options_create(frugal_options** out) {
  return guard("frugal_options_create", [&] {
    frugal::require_non_null(out, "frugal_options_create", "out");
    *out = new frugal_options();
  });
}

FRUGAL_API void frugal_options_destroy(frugal_options* options) { delete options; }

FRUGAL_API frugal_error* frugal_options_set_int(frugal_options* options, const char* name, int64_t value) {
  return guard("frugal_options_set_int", [&] {
    auto e = frugal::new_entry(options, name, FRUGAL_OPTION_INT);
    e.int_value = value;
    frugal::commit(options, std::move(e));
  });
}

FRUGAL_API frugal_error* frugal_options_set_double(frugal_options* options, const char* name, double value) {
  return guard("frugal_options_set_double", [&] {
    auto e = frugal::new_entry(options, name, FRUGAL_OPTION_DOUBLE);
    e.double_value = value;
    frugal::commit(options, std::move(e));
  });
}

FRUGAL_API frugal_error* frugal_options_set_bool(frugal_options* options, const char* name, int32_t value) {
  return guard("frugal_options_set_bool", [&] {
    auto e = frugal::new_entry(options, name, FRUGAL_OPTION_BOOL);
    e.int_value = value != 0 ? 1 : 0;
    frugal::commit(options, std::move(e));
  });
}

FRUGAL_API frugal_error* frugal_options_set_string(frugal_options* options, const char* name, const char* value) {
  return guard("frugal_options_set_string", [&] {
    frugal::require_non_null(value, "frugal_options_set_string", "value");
    auto e = frugal::new_entry(options, name, FRUGAL_OPTION_STRING);
    e.string_value = value;
    frugal::commit(options, std::move(e));
  });
}

FRUGAL_API frugal_error* frugal_options_set_comm(frugal_options* options, const char* name, frugal_comm* comm) {
  return guard("frugal_options_set_comm", [&] {
    frugal::require_non_null(comm, "frugal_options_set_comm", "comm");
    auto e = frugal::new_entry(options, name, FRUGAL_OPTION_COMM);
    e.comm_value = std::make_shared<frugal_comm>(frugal_comm{comm->impl});
    frugal::commit(options, std::move(e));
  });
}

FRUGAL_API frugal_error* frugal_options_set_parsed(frugal_options* options, const char* name, const char* text) {
  return guard("frugal_options_set_parsed", [&] {
    frugal::require_non_null(text, "frugal_options_set_parsed", "text");
    frugal::check_name(name);  // validate before choosing a type, for a clear message
    int64_t i = 0;
    double d = 0.0;
    frugal_error* error = nullptr;
    if (std::strcmp(text, "true") == 0 || std::strcmp(text, "false") == 0)
      error = frugal_options_set_bool(options, name, text[0] == 't');
    else if (frugal::parse_int(text, &i))
      error = frugal_options_set_int(options, name, i);
    else if (frugal::parse_double(text, &d))
      error = frugal_options_set_double(options, name, d);
    else
      error = frugal_options_set_string(options, name, text);
    frugal::rethrow_if_error(error, "");
  });
}

FRUGAL_API int32_t frugal_options_type(const frugal_options* options, const char* name) {
  if (options == nullptr || name == nullptr) return 0;
  for (const auto& e : options->entries)
    if (e.name == name) return e.type;
  return 0;
}

FRUGAL_API size_t frugal_options_count(const frugal_options* options) {
  return options != nullptr ? options->entries.size() : 0;
}

FRUGAL_API frugal_error* frugal_options_entry(const frugal_options* options, size_t index, const char** name,
                                              int32_t* type) {
  return guard("frugal_options_entry", [&] {
    frugal::require_non_null(name, "frugal_options_entry", "name");
    frugal::require_non_null(type, "frugal_options_entry", "type");
    const size_t count = frugal_options_count(options);
    if (index >= count) frugal::fail(FRUGAL_ERR_OUT_OF_RANGE, "option index {} out of range (count {})", index, count);
    *name = options->entries[index].name.c_str();
    *type = options->entries[index].type;
  });
}

FRUGAL_API frugal_error* frugal_options_get_int(const frugal_options* options, const char* name, int64_t default_value,
                                                int64_t* out) {
  return guard("frugal_options_get_int", [&] {
    frugal::require_non_null(out, "frugal_options_get_int", "out");
    const auto* e = frugal::find(options, name);
    if (e == nullptr) {
      *out = default_value;
      return;
    }
    if (e->type != FRUGAL_OPTION_INT) frugal::type_mismatch(*e, "int");
    *out = e->int_value;
  });
}

FRUGAL_API frugal_error* frugal_options_get_double(const frugal_options* options, const char* name,
                                                   double default_value, double* out) {
  return guard("frugal_options_get_double", [&] {
    frugal::require_non_null(out, "frugal_options_get_double", "out");
    const auto* e = frugal::find(options, name);
    if (e == nullptr) {
      *out = default_value;
      return;
    }
    if (e->type == FRUGAL_OPTION_INT)
      *out = static_cast<double>(e->int_value);
    else if (e->type == FRUGAL_OPTION_DOUBLE)
      *out = e->double_value;
    else
      frugal::type_mismatch(*e, "double");
  });
}

FRUGAL_API frugal_error* frugal_options_get_bool(const frugal_options* options, const char* name, int32_t default_value,
                                                 int32_t* out) {
  return guard("frugal_options_get_bool", [&] {
    frugal::require_non_null(out, "frugal_options_get_bool", "out");
    const auto* e = frugal::find(options, name);
    if (e == nullptr) {
      *out = default_value != 0 ? 1 : 0;
      return;
    }
    if (e->type != FRUGAL_OPTION_BOOL) frugal::type_mismatch(*e, "bool");
    *out = static_cast<int32_t>(e->int_value);
  });
}

FRUGAL_API frugal_error* frugal_options_get_string(const frugal_options* options, const char* name,
                                                   const char* default_value, const char** out) {
  return guard("frugal_options_get_string", [&] {
    frugal::require_non_null(out, "frugal_options_get_string", "out");
    const auto* e = frugal::find(options, name);
    if (e == nullptr) {
      *out = default_value;
      return;
    }
    if (e->type != FRUGAL_OPTION_STRING) frugal::type_mismatch(*e, "string");
    *out = e->string_value.c_str();
  });
}

FRUGAL_API frugal_error* frugal_options_get_comm(const frugal_options* options, const char* name, frugal_comm** out) {
  return guard("frugal_options_get_comm", [&] {
    frugal::require_non_null(out, "frugal_options_get_comm", "out");
    const auto* e = frugal::find(options, name);
    if (e == nullptr) {
      *out = nullptr;
      return;
    }
    if (e->type != FRUGAL_OPTION_COMM) frugal::type_mismatch(*e, "comm");
    *out = e->comm_value.get();
  });
}

}  // extern "C"

namespace frugal {

std::vector<std::shared_ptr<frugal_comm>> comm_references(const frugal_options* options) {
  std::vector<std::shared_ptr<frugal_comm>> out;
  if (options != nullptr)
    for (const auto& e : options->entries)
      if (e.type == FRUGAL_OPTION_COMM) out.push_back(e.comm_value);
  return out;
}

// Backs frugal_host_api.options_check_known: a misspelt option must never
// pass silently, so every name a strategy does not know is an error.
frugal_error* options_check_known(const frugal_options* options, const char* const* known, size_t count,
                                  const char* owner) noexcept {
  return guard("options_check_known", [&] {
    if (options == nullptr) return;
    if (count > 0) require_non_null(known, "options_check_known", "known");
    for (const auto& e : options->entries) {
      bool found = false;
      for (size_t i = 0; i < count && !found; ++i) found = known[i] != nullptr && e.name == known[i];
      if (found) continue;
      std::string accepted;
      for (size_t i = 0; i < count; ++i)
        if (known[i] != nullptr) accepted += fmt::format("{}{}", accepted.empty() ? "" : ", ", known[i]);
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}{}unknown option '{}' (accepted: {})", owner != nullptr ? owner : "",
           owner != nullptr ? ": " : "", e.name, accepted.empty() ? "none" : accepted);
    }
  });
}

}  // namespace frugal
