#include "json_fields.hpp"

#include <fmt/format.h>

#include <cmath>

#include "input_error.hpp"

namespace frugal::simulate {

void fail_at(const std::string& source, const JsonValue& where, const std::string& what) {
  throw InputError(fmt::format("{}:{}:{}: {}", source, where.line, where.column, what));
}

JsonFields::JsonFields(const JsonValue& object, std::string path, std::string source)
    : object_(object), path_(std::move(path)), source_(std::move(source)) {
  if (!object_.is_object())
    fail(object_, fmt::format("{} must be an object, got {}", path_.empty() ? "the job" : path_, json_kind_name(object_.kind)));
}

std::string JsonFields::path_of(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

void JsonFields::fail(const JsonValue& where, const std::string& what) const { fail_at(source_, where, what); }

bool JsonFields::has(std::string_view key) const { return object_.find(key) != nullptr; }

const JsonValue* JsonFields::get(std::string_view key) {
  known_.emplace(key);
  return object_.find(key);
}

const JsonValue& JsonFields::require(std::string_view key) {
  const JsonValue* value = get(key);
  if (value == nullptr) fail(object_, fmt::format("{} is missing", path_of(key)));
  return *value;
}

double JsonFields::number(std::string_view key, double min, double max, std::optional<double> fallback) {
  known_.emplace(key);
  if (fallback && !has(key)) return *fallback;
  const JsonValue& value = require(key);
  if (!value.is_number()) fail(value, fmt::format("{} must be a number, got {}", path_of(key), json_kind_name(value.kind)));
  if (!(value.number >= min && value.number <= max)) {
    const std::string range = std::isinf(max) ? fmt::format(">= {}", min) : fmt::format("in [{}, {}]", min, max);
    fail(value, fmt::format("{} must be {}, got {}", path_of(key), range, value.number));
  }
  return value.number;
}

int64_t JsonFields::integer(std::string_view key, int64_t min, int64_t max, std::optional<int64_t> fallback) {
  known_.emplace(key);
  if (fallback && !has(key)) return *fallback;
  const JsonValue& value = require(key);
  if (!value.is_number() || value.number != std::floor(value.number) || std::abs(value.number) > 9.007199254740992e15)
    fail(value, fmt::format("{} must be an integer, got {}", path_of(key),
                            value.is_number() ? fmt::format("{}", value.number) : json_kind_name(value.kind)));
  const auto n = static_cast<int64_t>(value.number);
  if (n < min || n > max) fail(value, fmt::format("{} must be in [{}, {}], got {}", path_of(key), min, max, n));
  return n;
}

std::string JsonFields::string(std::string_view key, std::optional<std::string> fallback) {
  known_.emplace(key);
  if (fallback && !has(key)) return *fallback;
  const JsonValue& value = require(key);
  if (!value.is_string()) fail(value, fmt::format("{} must be a string, got {}", path_of(key), json_kind_name(value.kind)));
  return value.text;
}

bool JsonFields::boolean(std::string_view key, std::optional<bool> fallback) {
  known_.emplace(key);
  if (fallback && !has(key)) return *fallback;
  const JsonValue& value = require(key);
  if (!value.is_bool()) fail(value, fmt::format("{} must be true or false, got {}", path_of(key), json_kind_name(value.kind)));
  return value.boolean;
}

const JsonValue* JsonFields::typed(std::string_view key, bool optional, JsonValue::Kind kind) {
  known_.emplace(key);
  if (optional && !has(key)) return nullptr;
  const JsonValue& value = require(key);
  if (value.kind != kind)
    fail(value, fmt::format("{} must be {}, got {}", path_of(key), json_kind_name(kind), json_kind_name(value.kind)));
  return &value;
}

const JsonValue* JsonFields::object(std::string_view key, bool optional) {
  return typed(key, optional, JsonValue::Kind::kObject);
}

const JsonValue* JsonFields::array(std::string_view key, bool optional) { return typed(key, optional, JsonValue::Kind::kArray); }

void JsonFields::finish() const {
  for (const auto& [name, value] : object_.members) {
    if (known_.count(name) != 0) continue;
    // Listing what is accepted here helps with typos ("prices.spto").
    std::string known;
    for (const auto& k : known_) known += (known.empty() ? "" : ", ") + k;
    fail(value, fmt::format("unknown member {}{}", path_of(name), known.empty() ? "" : fmt::format(" (known here: {})", known)));
  }
}

}  // namespace frugal::simulate
