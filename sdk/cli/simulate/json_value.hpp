// A strict JSON reader (RFC 8259) for job files and traces: no comments, no
// trailing commas, no duplicate keys, no NaN/Infinity, numbers that fit a
// double. Every value remembers where it starts, so a reader of the tree
// can say "file:line:column: what is wrong" about a field, not just about
// the syntax. Objects keep their members in file order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace frugal::simulate {

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };

  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0.0;
  std::string text;  // a string's content (UTF-8, escapes decoded)
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;
  // Where the value starts in its source (1-based).
  uint32_t line = 0;
  uint32_t column = 0;

  // Out of line (json_value.cpp): defined here, they would instantiate
  // the members' vector of pair<string, JsonValue> while JsonValue is still
  // incomplete, which clang refuses (C++20's constexpr std::vector).
  JsonValue();
  ~JsonValue();
  JsonValue(const JsonValue&);
  JsonValue(JsonValue&&) noexcept;
  JsonValue& operator=(const JsonValue&);
  JsonValue& operator=(JsonValue&&) noexcept;

  bool is_null() const { return kind == Kind::kNull; }
  bool is_bool() const { return kind == Kind::kBool; }
  bool is_number() const { return kind == Kind::kNumber; }
  bool is_string() const { return kind == Kind::kString; }
  bool is_array() const { return kind == Kind::kArray; }
  bool is_object() const { return kind == Kind::kObject; }

  // The member named `key` of an object, or nullptr (also for non-objects).
  const JsonValue* find(std::string_view key) const;
};

// "object", "array", "string", "number", "true/false" or "null": for messages.
const char* json_kind_name(JsonValue::Kind kind);

// Parses a whole document. `source` names it in errors ("job.json"), which
// read "source:line:column: what is wrong" (InputError); a document of more
// than kMaxJsonValues values (input_limits.hpp) is refused.
JsonValue parse_json(std::string_view text, std::string_view source);

}  // namespace frugal::simulate
