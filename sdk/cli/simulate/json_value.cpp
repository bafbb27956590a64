#include "json_value.hpp"

#include <fmt/format.h>

#include <charconv>
#include <system_error>

#include "input_error.hpp"
#include "input_limits.hpp"

namespace frugal::simulate {
namespace {

// Deep enough for any job or trace; shallow enough that a hostile file
// cannot exhaust the stack through recursion.
constexpr int kMaxDepth = 128;

// Roughly log10 of a well-formed JSON number's magnitude: the position of
// its first significant digit relative to the decimal point, plus the
// exponent. Only its sign matters (too big or too small for a double).
long decimal_magnitude(std::string_view lexeme) {
  size_t i = lexeme[0] == '-' ? 1 : 0;
  long magnitude = 0;
  bool significant = false;
  for (; i < lexeme.size() && lexeme[i] >= '0' && lexeme[i] <= '9'; ++i) {
    significant = significant || lexeme[i] != '0';
    if (significant) ++magnitude;
  }
  if (i < lexeme.size() && lexeme[i] == '.') {
    for (++i; i < lexeme.size() && lexeme[i] >= '0' && lexeme[i] <= '9'; ++i) {
      if (!significant && lexeme[i] == '0') --magnitude;
      significant = significant || lexeme[i] != '0';
    }
  }
  if (i < lexeme.size() && (lexeme[i] == 'e' || lexeme[i] == 'E')) {
    long exponent = 0;
    const auto parsed = std::from_chars(lexeme.data() + i + 1 + (lexeme[i + 1] == '+' ? 1 : 0),
                                        lexeme.data() + lexeme.size(), exponent);
    // An exponent beyond long is far out of range either way.
    if (parsed.ec == std::errc::result_out_of_range) return lexeme[i + 1] == '-' ? -1 : 1;
    magnitude += exponent;
  }
  return magnitude;
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  JsonValue document() {
    skip_space();
    JsonValue root = value(0);
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the JSON value");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("{}:{}:{}: {}", source_, line_, column_, what));
  }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }

  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }

  void skip_space() {
    while (!at_end()) {
      const char c = peek();
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
      advance();
    }
  }

  void expect_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) fail(fmt::format("expected '{}'", word));
    for (size_t i = 0; i < word.size(); ++i) advance();
  }

  JsonValue value(int depth) {
    if (depth > kMaxDepth) fail(fmt::format("nesting deeper than {} levels", kMaxDepth));
    if (++values_ > kMaxJsonValues) fail(fmt::format("more than {} values in one document", kMaxJsonValues));
    JsonValue v;
    v.line = line_;
    v.column = column_;
    switch (peek()) {
      case '{': object(v, depth); break;
      case '[': array(v, depth); break;
      case '"':
        v.kind = JsonValue::Kind::kString;
        v.text = string();
        break;
      case 't':
        expect_word("true");
        v.kind = JsonValue::Kind::kBool;
        v.boolean = true;
        break;
      case 'f':
        expect_word("false");
        v.kind = JsonValue::Kind::kBool;
        break;
      case 'n': expect_word("null"); break;
      case '\0':
        if (at_end()) fail("unexpected end of input, expected a value");
        fail("unexpected character, expected a value");
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) {
          v.kind = JsonValue::Kind::kNumber;
          v.number = number();
        } else {
          fail(fmt::format("unexpected character '{}', expected a value", peek()));
        }
    }
    return v;
  }

  // The elements of an object or array up to `close`, comma-separated;
  // `element` reads one (after leading blanks).
  template <typename Element>
  void elements(char close, const char* what, Element&& element) {
    advance();  // the opening bracket
    skip_space();
    if (peek() == close) {
      advance();
      return;
    }
    for (;;) {
      skip_space();
      element();
      skip_space();
      if (peek() == close) {
        advance();
        return;
      }
      if (peek() != ',') fail(fmt::format("expected ',' or '{}' in {}", close, what));
      advance();
    }
  }

  void object(JsonValue& v, int depth) {
    v.kind = JsonValue::Kind::kObject;
    elements('}', "an object", [&] {
      if (peek() != '"') fail("expected a member name in double quotes");
      const uint32_t key_line = line_, key_column = column_;
      std::string key = string();
      if (v.find(key) != nullptr) {
        line_ = key_line;
        column_ = key_column;
        fail(fmt::format("duplicate member \"{}\"", key));
      }
      skip_space();
      if (peek() != ':') fail("expected ':' after the member name");
      advance();
      skip_space();
      v.members.emplace_back(std::move(key), value(depth + 1));
    });
  }

  void array(JsonValue& v, int depth) {
    v.kind = JsonValue::Kind::kArray;
    elements(']', "an array", [&] { v.items.push_back(value(depth + 1)); });
  }

  unsigned hex4() {
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = peek();
      unsigned digit = 0;
      if (c >= '0' && c <= '9') {
        digit = static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        digit = static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        digit = static_cast<unsigned>(c - 'A' + 10);
      } else {
        fail("expected 4 hex digits after \\u");
      }
      code = code * 16 + digit;
      advance();
    }
    return code;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  unsigned escaped_code_point() {
    unsigned code = hex4();
    if (code >= 0xDC00 && code <= 0xDFFF) fail("unpaired low surrogate in \\u escape");
    if (code >= 0xD800 && code <= 0xDBFF) {
      if (peek() != '\\') fail("high surrogate without its low surrogate");
      advance();
      if (peek() != 'u') fail("high surrogate without its low surrogate");
      advance();
      const unsigned low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) fail("high surrogate without its low surrogate");
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    return code;
  }

  std::string string() {
    advance();  // opening quote
    std::string out;
    for (;;) {
      if (at_end()) fail("unterminated string");
      const char c = peek();
      if (c == '"') {
        advance();
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string (escape it)");
      if (c != '\\') {
        out += c;
        advance();
        continue;
      }
      advance();
      const char e = peek();
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u':
          advance();
          append_utf8(out, escaped_code_point());
          continue;
        default: fail("invalid escape in a string");
      }
      advance();
    }
  }

  void digits() {
    if (!(peek() >= '0' && peek() <= '9')) fail("malformed number: expected a digit");
    while (peek() >= '0' && peek() <= '9') advance();
  }

  double number() {
    const size_t start = pos_;
    const uint32_t start_line = line_, start_column = column_;
    if (peek() == '-') advance();
    if (peek() == '0') {
      advance();
      if (peek() >= '0' && peek() <= '9') fail("malformed number: leading zero");
    } else {
      digits();
    }
    if (peek() == '.') {
      advance();
      digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      advance();
      if (peek() == '+' || peek() == '-') advance();
      digits();
    }
    const std::string_view lexeme = text_.substr(start, pos_ - start);
    double out = 0.0;
    const auto [ptr, ec] = std::from_chars(lexeme.data(), lexeme.data() + lexeme.size(), out);
    // from_chars reports underflow as out of range too; only overflow is
    // an error (a tiny number reads as zero).
    if (ec == std::errc::result_out_of_range) {
      if (decimal_magnitude(lexeme) > 0) {
        line_ = start_line;  // point at the number, not past it
        column_ = start_column;
        fail(fmt::format("number {} does not fit a double", lexeme));
      }
      return lexeme[0] == '-' ? -0.0 : 0.0;
    }
    if (ec != std::errc() || ptr != lexeme.data() + lexeme.size()) fail(fmt::format("malformed number {}", lexeme));
    return out;
  }

  std::string_view text_;
  std::string_view source_;
  size_t pos_ = 0;
  size_t values_ = 0;  // read so far, against kMaxJsonValues
  uint32_t line_ = 1;
  uint32_t column_ = 1;
};

}  // namespace

JsonValue::JsonValue() = default;
JsonValue::~JsonValue() = default;
JsonValue::JsonValue(const JsonValue&) = default;
JsonValue::JsonValue(JsonValue&&) noexcept = default;
JsonValue& JsonValue::operator=(const JsonValue&) = default;
JsonValue& JsonValue::operator=(JsonValue&&) noexcept = default;

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& [name, member] : members)
    if (name == key) return &member;
  return nullptr;
}

const char* json_kind_name(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::kNull: return "null";
    case JsonValue::Kind::kBool: return "true/false";
    case JsonValue::Kind::kNumber: return "a number";
    case JsonValue::Kind::kString: return "a string";
    case JsonValue::Kind::kArray: return "an array";
    case JsonValue::Kind::kObject: return "an object";
  }
  return "?";
}

JsonValue parse_json(std::string_view text, std::string_view source) { return Parser(text, source).document(); }

}  // namespace frugal::simulate
