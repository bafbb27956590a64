#include "json_input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "input_error.hpp"
#include "input_limits.hpp"

namespace frugal::simulate {
namespace {

// The text as nlohmann's parser takes it, one byte at a time. Each step
// also moves `*read` past the byte, so that a refusal of the Builder below
// (nlohmann tells it no position) can name the place where the parser is.
class TrackedBytes {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackedBytes(const char* at, const char** read) : at_(at), read_(read) {}
  reference operator*() const { return *at_; }
  TrackedBytes& operator++() {
    *read_ = ++at_;
    return *this;
  }
  TrackedBytes operator++(int) {
    TrackedBytes before = *this;
    ++*this;
    return before;
  }
  bool operator==(const TrackedBytes& other) const { return at_ == other.at_; }

 private:
  const char* at_;
  const char** read_;
};

// At most `limit` bytes of `text` for a message: its end, where a parser
// stopped ("...abc"). A token or a member name can be megabytes long.
std::string tail(std::string_view text, size_t limit = 40) {
  if (text.size() <= limit) return std::string(text);
  return "..." + std::string(text.substr(text.size() - limit));
}

// nlohmann's message without its "[json.exception.parse_error.101] parse
// error at line L, column C: " head (the place is given our way), and with
// the token it quotes ("; last read: '...'") cut to its end.
std::string description(const JsonValue::exception& error) {
  std::string_view what = error.what();
  if (const size_t name_end = what.find("] "); name_end != std::string_view::npos) what.remove_prefix(name_end + 2);
  if (what.rfind("parse error", 0) == 0)
    if (const size_t head_end = what.find(": "); head_end != std::string_view::npos) what.remove_prefix(head_end + 2);
  constexpr std::string_view kLastRead = "; last read: '";
  const size_t quoted = what.find(kLastRead);
  if (quoted == std::string_view::npos || what.back() != '\'') return std::string(what);
  const std::string_view token = what.substr(quoted + kLastRead.size(), what.size() - quoted - kLastRead.size() - 1);
  return fmt::format("{}{}{}'", what.substr(0, quoted), kLastRead, tail(token));
}

// Builds the document from nlohmann's SAX events (its parser is
// iterative: depth costs it heap, not stack), refusing what the header
// says as soon as it shows. Containers stand in the tree from their start,
// as nlohmann's own DOM builder does; `open_` points at each one not yet
// closed (an object's members and a parent's other elements are not added
// to while a child is open, so the pointers stay valid).
class Builder {
 public:
  Builder(JsonValue& root, std::string_view text, std::string_view source, const char* const& read, size_t max_values)
      : root_(root), text_(text), source_(source), read_(read), max_values_(max_values) {}

  bool null() { return add(nullptr); }
  bool boolean(bool value) { return add(value); }
  bool number_integer(JsonValue::number_integer_t value) { return add(value); }
  bool number_unsigned(JsonValue::number_unsigned_t value) { return add(value); }
  bool number_float(JsonValue::number_float_t value, const JsonValue::string_t& /*text*/) { return add(value); }
  bool string(JsonValue::string_t& value) { return add(std::move(value)); }
  // Only the binary formats (CBOR, MessagePack, ...) have binary values.
  bool binary(JsonValue::binary_t& /*value*/) { return refuse("binary value"); }

  bool start_object(std::size_t /*size*/) { return open(JsonValue::value_t::object); }
  bool start_array(std::size_t /*size*/) { return open(JsonValue::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(JsonValue::string_t& name) {
    JsonValue& object = *open_.back();
    if (object.contains(name)) return refuse(fmt::format("duplicate member \"{}\"", tail(name)));
    member_ = &object[name];
    return true;
  }

  bool parse_error(std::size_t read, const std::string& token, const JsonValue::exception& error) {
    // 406: a number too large for a double ("1e400"); nlohmann has read
    // just the number, so its start is `token` back. Tiny ones read as 0.
    constexpr int kNumberOverflow = 406;
    if (error.id == kNumberOverflow && token.size() <= read)
      return refuse_at(read - token.size(), fmt::format("number {} does not fit a double", tail(token)));
    // `read` counts the byte the parser stopped on (or the end of input).
    return refuse_at(read == 0 ? 0 : read - 1, description(error));
  }

  const std::string& error() const { return error_; }

 private:
  template <typename Value>
  bool add(Value&& value) {
    if (!count()) return false;
    place(JsonValue(std::forward<Value>(value)));
    return true;
  }

  bool open(JsonValue::value_t kind) {
    if (open_.size() >= kMaxJsonDepth) return refuse(fmt::format("nesting deeper than {} levels", kMaxJsonDepth));
    if (!count()) return false;
    open_.push_back(place(JsonValue(kind)));
    return true;
  }

  bool close() {
    open_.pop_back();
    return true;
  }

  bool count() {
    if (++values_ <= max_values_) return true;
    return refuse(fmt::format("more than {} values in one document", max_values_));
  }

  JsonValue* place(JsonValue&& value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    JsonValue& parent = *open_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    *member_ = std::move(value);
    return member_;
  }

  // At the last byte the parser has read.
  bool refuse(const std::string& what) {
    const auto read = static_cast<size_t>(read_ - text_.data());
    return refuse_at(read == 0 ? 0 : read - 1, what);
  }

  // At byte `offset` of the text (its size: the end), as line:column, 1-based.
  bool refuse_at(size_t offset, const std::string& what) {
    const std::string_view before = text_.substr(0, std::min(offset, text_.size()));
    size_t line = 1;
    for (const char c : before) line += c == '\n' ? 1 : 0;
    const size_t line_start = before.rfind('\n');
    const size_t column = line_start == std::string_view::npos ? offset + 1 : offset - line_start;
    error_ = fmt::format("{}:{}:{}: {}", source_, line, column, what);
    return false;
  }

  JsonValue& root_;
  std::string_view text_;
  std::string_view source_;
  const char* const& read_;  // one past the last byte the parser has read
  size_t max_values_;
  std::vector<JsonValue*> open_;
  JsonValue* member_ = nullptr;  // the member whose name was read last
  size_t values_ = 0;            // read so far, against max_values_
  std::string error_;
};

}  // namespace

JsonValue parse_json(std::string_view text, std::string_view source, std::size_t max_values) {
  const char* read = text.data();
  JsonValue root;
  Builder builder(root, text, source, read, max_values);
  const TrackedBytes begin(text.data(), &read);
  const TrackedBytes end(text.data() + text.size(), &read);
  if (!JsonValue::sax_parse(begin, end, &builder)) throw InputError(builder.error());
  return root;
}

const char* json_kind_name(JsonValue::value_t kind) {
  switch (kind) {
    case JsonValue::value_t::null: return "null";
    case JsonValue::value_t::boolean: return "true/false";
    case JsonValue::value_t::number_integer:
    case JsonValue::value_t::number_unsigned:
    case JsonValue::value_t::number_float: return "a number";
    case JsonValue::value_t::string: return "a string";
    case JsonValue::value_t::array: return "an array";
    case JsonValue::value_t::object: return "an object";
    case JsonValue::value_t::binary:
    case JsonValue::value_t::discarded: break;  // never in a parsed document
  }
  return "a value";
}

const char* json_kind_name(const JsonValue& value) { return json_kind_name(value.type()); }

const JsonValue* json_member(const JsonValue& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto found = object.find(key);
  return found == object.end() ? nullptr : &*found;
}

double json_number(const JsonValue& number) { return number.get<double>(); }

}  // namespace frugal::simulate
