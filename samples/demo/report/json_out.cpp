// JsonOut: the report's JSON, written by hand (no dependency).
#include "json_out.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace frugal_demo {

std::string json_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        else
          out += c;
    }
  }
  return out + '"';
}

void JsonOut::member(std::string_view key) {
  if (!has_members_.empty()) {
    if (has_members_.back()) out_ += ',';
    has_members_.back() = true;
    out_ += '\n';
    out_.append(2 * has_members_.size(), ' ');
  }
  if (!key.empty()) out_ += json_quoted(key) + ": ";
}

void JsonOut::raw(std::string_view key, std::string_view json) {
  member(key);
  out_ += json;
}

void JsonOut::begin_object(std::string_view key) {
  raw(key, "{");
  has_members_.push_back(false);
}

void JsonOut::begin_array(std::string_view key) {
  raw(key, "[");
  has_members_.push_back(false);
}

void JsonOut::end_object() {
  const bool any = has_members_.back();
  has_members_.pop_back();
  if (any) {
    out_ += '\n';
    out_.append(2 * has_members_.size(), ' ');
  }
  out_ += '}';
}

void JsonOut::end_array() {
  const bool any = has_members_.back();
  has_members_.pop_back();
  if (any) {
    out_ += '\n';
    out_.append(2 * has_members_.size(), ' ');
  }
  out_ += ']';
}

void JsonOut::number(std::string_view key, double value) {
  // Shortest text that reads back as the same double.
  raw(key, std::isfinite(value) ? fmt::format("{}", value) : "null");
}

void JsonOut::number(std::string_view key, std::optional<double> value) {
  if (value)
    number(key, *value);
  else
    raw(key, "null");
}

void JsonOut::integer(std::string_view key, std::int64_t value) { raw(key, fmt::format("{}", value)); }

void JsonOut::integer(std::string_view key, std::optional<std::int64_t> value) {
  raw(key, value ? fmt::format("{}", *value) : "null");
}

void JsonOut::boolean(std::string_view key, bool value) { raw(key, value ? "true" : "false"); }

void JsonOut::string(std::string_view key, std::string_view value) { raw(key, json_quoted(value)); }

const std::string& JsonOut::text() const {
  if (!has_members_.empty()) throw std::logic_error("JsonOut: an object or array is still open");
  return out_;
}

}  // namespace frugal_demo
