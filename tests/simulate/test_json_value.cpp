// The strict JSON reader: what it accepts, and that every refusal names
// the source, line and column.
#include <catch2/catch.hpp>

#include "json_value.hpp"
#include "sim_fixture.hpp"

using frugal::simulate::JsonValue;
using frugal::simulate::parse_json;
using frugal::test::input_error_of;

TEST_CASE("json: objects, arrays, strings, numbers and literals, in file order") {
  const JsonValue v = parse_json(R"( {"a": [1, -2.5e3, 0, true, false, null], "b": {"c": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}} )", "t");
  REQUIRE(v.is_object());
  REQUIRE(v.members.size() == 2);
  CHECK(v.members[0].first == "a");
  const JsonValue& a = *v.find("a");
  REQUIRE(a.items.size() == 6);
  CHECK(a.items[0].number == 1.0);
  CHECK(a.items[1].number == -2500.0);
  CHECK(a.items[3].boolean);
  CHECK(a.items[4].is_bool());
  CHECK(a.items[5].is_null());
  CHECK(v.find("b")->find("c")->text == "x\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(v.find("missing") == nullptr);
  CHECK(a.line == 1);
  CHECK(a.column == 8);
}

TEST_CASE("json: tiny numbers read as zero, huge ones are refused") {
  CHECK(parse_json("1e-400", "t").number == 0.0);
  CHECK(parse_json("0.0000000000000000000000000000001e-300", "t").number == 0.0);
  CHECK(parse_json("-123456789e300", "t").number == -1.23456789e308);
  CHECK(input_error_of([] { parse_json("[1e400]", "t.json"); }) == "t.json:1:2: number 1e400 does not fit a double");
  CHECK(input_error_of([] { parse_json("-123456789e303", "t"); }).find("does not fit") != std::string::npos);
}

TEST_CASE("json: each syntax error names the place") {
  const std::pair<const char*, const char*> cases[] = {
      {"{\"a\": 1,}", "t:1:9: expected a member name in double quotes"},
      {"[1, 2,]", "t:1:7: unexpected character ']', expected a value"},
      {"{\"a\": 1, \"a\": 2}", "t:1:10: duplicate member \"a\""},
      {"{\"loss\": NaN}", "t:1:10: unexpected character 'N', expected a value"},
      {"[Infinity]", "t:1:2: unexpected character 'I', expected a value"},
      {"[01]", "t:1:3: malformed number: leading zero"},
      {"[1.]", "t:1:4: malformed number: expected a digit"},
      {"[-]", "t:1:3: malformed number: expected a digit"},
      {"\"abc", "t:1:5: unterminated string"},
      {"\"a\tb\"", "t:1:3: control character in a string (escape it)"},
      {"\"\\x\"", "t:1:3: invalid escape in a string"},
      {"\"\\ud800\"", "t:1:8: high surrogate without its low surrogate"},
      {"{} {}", "t:1:4: unexpected text after the JSON value"},
      {"", "t:1:1: unexpected end of input, expected a value"},
      {"{\n  \"a\" 1\n}", "t:2:7: expected ':' after the member name"},
      {"[1 2]", "t:1:4: expected ',' or ']' in an array"},
      {"tru", "t:1:1: expected 'true'"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    CHECK(input_error_of([&] { parse_json(text, "t"); }) == message);
  }
}

TEST_CASE("json: nesting is bounded, so a hostile file cannot exhaust the stack") {
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  CHECK(parse_json(deep, "t").is_array());
  const std::string too_deep = std::string(5000, '[') + std::string(5000, ']');
  CHECK(input_error_of([&] { parse_json(too_deep, "t"); }).find("nesting deeper than 128 levels") != std::string::npos);
}
