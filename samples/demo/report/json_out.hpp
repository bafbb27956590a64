// A small JSON writer for report.json: nested objects and arrays, indented,
// strings escaped per RFC 8259, numbers round-trippable, and what has no
// value (an empty optional, NaN, infinity) as null.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace frugal_demo {

class JsonOut {
 public:
  // Members of an object take a key; elements of an array take none.
  void begin_object(std::string_view key = {});
  void end_object();
  void begin_array(std::string_view key = {});
  void end_array();
  void number(std::string_view key, double value);
  void number(std::string_view key, std::optional<double> value);
  void integer(std::string_view key, std::int64_t value);
  void integer(std::string_view key, std::optional<std::int64_t> value);
  void boolean(std::string_view key, bool value);
  void string(std::string_view key, std::string_view value);

  // The document; every object and array must be closed.
  const std::string& text() const;

 private:
  void member(std::string_view key);
  void raw(std::string_view key, std::string_view json);

  std::string out_;
  std::vector<bool> has_members_;  // one per open object or array
};

// `text` as a quoted JSON string literal.
std::string json_quoted(std::string_view text);

}  // namespace frugal_demo
