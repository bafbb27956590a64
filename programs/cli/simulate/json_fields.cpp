#include "json_fields.hpp"

#include <fmt/format.h>

#include <cmath>

#include "input_error.hpp"

namespace frugal::simulate {

JsonFields::JsonFields(const JsonValue& object, std::string path, std::string source)
    : object_(object), path_(std::move(path)), source_(std::move(source)) {
  if (!object_.is_object())
    fail(fmt::format("{} must be an object, got {}", path_.empty() ? "the job" : path_, json_kind_name(object_)));
}

std::string JsonFields::path_of(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

void JsonFields::fail(const std::string& what) const { fail_in(source_, what); }

bool JsonFields::has(std::string_view key) const { return json_member(object_, key) != nullptr; }

const JsonValue* JsonFields::get(std::string_view key) {
  known_.emplace(key);
  return json_member(object_, key);
}

const JsonValue& JsonFields::require(std::string_view key) {
  const JsonValue* value = get(key);
  if (value == nullptr) fail(fmt::format("{} is missing", path_of(key)));
  return *value;
}

double JsonFields::number(std::string_view key, double min, double max, std::optional<double> fallback) {
  known_.emplace(key);
  if (fallback && !has(key)) return *fallback;
  const JsonValue& value = require(key);
  if (!value.is_number()) fail(fmt::format("{} must be a number, got {}", path_of(key), json_kind_name(value)));
  const double number = json_number(value);
  if (!(number >= min && number <= max)) {
    const std::string range = std::isinf(max) ? fmt::format(">= {}", min) : fmt::format("in [{}, {}]", min, max);
    fail(fmt::format("{} must be {}, got {}", path_of(key), range, number));
  }
  return number;
}

int64_t JsonFields::integer(std::string_view key, int64_t min, int64_t max, std::optional<int64_t> fallback) {
  known_.emplace(key);
  if (fallback && !has(key)) return *fallback;
  const JsonValue& value = require(key);
  // Read as a double like every number (1e3 and 1000.0 are integers too),
  // and exact only up to 2^53.
  const double number = value.is_number() ? json_number(value) : 0.0;
  if (!value.is_number() || number != std::floor(number) || std::abs(number) > 9.007199254740992e15)
    fail(fmt::format("{} must be an integer, got {}", path_of(key),
                     value.is_number() ? fmt::format("{}", number) : json_kind_name(value)));
  const auto n = static_cast<int64_t>(number);
  if (n < min || n > max) fail(fmt::format("{} must be in [{}, {}], got {}", path_of(key), min, max, n));
  return n;
}

std::string JsonFields::string(std::string_view key, std::optional<std::string> fallback) {
  known_.emplace(key);
  if (fallback && !has(key)) return *fallback;
  const JsonValue& value = require(key);
  if (!value.is_string()) fail(fmt::format("{} must be a string, got {}", path_of(key), json_kind_name(value)));
  return value.get<std::string>();
}

bool JsonFields::boolean(std::string_view key, std::optional<bool> fallback) {
  known_.emplace(key);
  if (fallback && !has(key)) return *fallback;
  const JsonValue& value = require(key);
  if (!value.is_boolean()) fail(fmt::format("{} must be true or false, got {}", path_of(key), json_kind_name(value)));
  return value.get<bool>();
}

const JsonValue* JsonFields::typed(std::string_view key, bool optional, JsonValue::value_t kind) {
  known_.emplace(key);
  if (optional && !has(key)) return nullptr;
  const JsonValue& value = require(key);
  if (value.type() != kind)
    fail(fmt::format("{} must be {}, got {}", path_of(key), json_kind_name(kind), json_kind_name(value)));
  return &value;
}

const JsonValue* JsonFields::object(std::string_view key, bool optional) {
  return typed(key, optional, JsonValue::value_t::object);
}

const JsonValue* JsonFields::array(std::string_view key, bool optional) {
  return typed(key, optional, JsonValue::value_t::array);
}

void JsonFields::finish() const {
  for (const auto& member : object_.items()) {
    if (known_.count(member.key()) != 0) continue;
    // Listing what is accepted here helps with typos ("prices.spto").
    std::string known;
    for (const auto& k : known_) known += (known.empty() ? "" : ", ") + k;
    fail(fmt::format("unknown member {}{}", path_of(member.key()),
                     known.empty() ? "" : fmt::format(" (known here: {})", known)));
  }
}

}  // namespace frugal::simulate
