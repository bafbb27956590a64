// Typed, checked reading of a JSON object's members for the job file: each
// getter names the member's path ("prices.spot") in the file's message
// when the value is missing, of the wrong type or out of range, and
// finish() refuses members nobody asked for (a typo is an error, not a
// silently ignored setting).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "json_input.hpp"

namespace frugal::simulate {

class JsonFields {
 public:
  // `object` must outlive this reader; `path` prefixes member names in
  // messages ("" at the top level); `source` is the file name.
  JsonFields(const JsonValue& object, std::string path, std::string source);

  [[nodiscard]] bool has(std::string_view key) const;
  const JsonValue* get(std::string_view key);  // nullptr when absent

  // A finite number in [min, max]; `fallback` when absent (nullopt: required).
  double number(std::string_view key, double min, double max, std::optional<double> fallback = std::nullopt);
  // An integer in [min, max].
  int64_t integer(std::string_view key, int64_t min, int64_t max, std::optional<int64_t> fallback = std::nullopt);
  std::string string(std::string_view key, std::optional<std::string> fallback = std::nullopt);
  bool boolean(std::string_view key, std::optional<bool> fallback = std::nullopt);
  // A nested object (required unless optional; nullptr when absent and optional).
  const JsonValue* object(std::string_view key, bool optional);
  const JsonValue* array(std::string_view key, bool optional);

  // InputError for the first member (in name order) no getter asked for.
  void finish() const;

  [[nodiscard]] std::string path_of(std::string_view key) const;
  // InputError "source: what".
  [[noreturn]] void fail(const std::string& what) const;

 private:
  const JsonValue& require(std::string_view key);
  const JsonValue* typed(std::string_view key, bool optional, JsonValue::value_t kind);

  const JsonValue& object_;
  std::string path_;
  std::string source_;
  std::set<std::string, std::less<>> known_;  // every key a getter asked for
};

}  // namespace frugal::simulate
