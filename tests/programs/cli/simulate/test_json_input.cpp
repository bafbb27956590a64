// The simulator's JSON reader (nlohmann-json's parser with the
// simulator's rules): what it accepts, that every refusal of the text
// names the source, line and column, and that the limits hold before a
// hostile document is held or recursed into.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <string>

#include "input_limits.hpp"
#include "json_input.hpp"
#include "sim_fixture.hpp"

using frugal::simulate::json_kind_name;
using frugal::simulate::json_member;
using frugal::simulate::json_number;
using frugal::simulate::JsonValue;
using frugal::simulate::parse_json;
using frugal::test::input_error_of;

TEST_CASE("json: objects, arrays, strings, numbers and literals") {
  const JsonValue v = parse_json(
      R"( {"a": [1, -2.5e3, 0, true, false, null, 18446744073709551615], "b": {"c": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}} )",
      "t");
  REQUIRE(v.is_object());
  CHECK(v.size() == 2);
  const JsonValue& a = *json_member(v, "a");
  REQUIRE(a.size() == 7);
  CHECK(json_number(a[0]) == 1.0);
  CHECK(json_number(a[1]) == -2500.0);
  CHECK(a[3].get<bool>());
  CHECK(a[4].is_boolean());
  CHECK(a[5].is_null());
  CHECK(json_number(a[6]) == 18446744073709551615.0);
  CHECK(json_member(*json_member(v, "b"), "c")->get<std::string>() == "x\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(json_member(v, "missing") == nullptr);
  CHECK(json_member(a, "a") == nullptr);  // not an object
  CHECK(std::string(json_kind_name(a)) == "an array");
  CHECK(std::string(json_kind_name(a[0])) == "a number");
  CHECK(std::string(json_kind_name(a[1])) == "a number");
  CHECK(std::string(json_kind_name(a[3])) == "true/false");
}

TEST_CASE("json: tiny numbers read as zero, huge ones are refused at the number") {
  CHECK(json_number(parse_json("1e-400", "t")) == 0.0);
  CHECK(json_number(parse_json("0.0000000000000000000000000000001e-300", "t")) == 0.0);
  CHECK(json_number(parse_json("-123456789e300", "t")) == -1.23456789e308);
  CHECK(input_error_of([] { parse_json("[1e400]", "t.json"); }) == "t.json:1:2: number 1e400 does not fit a double");
  CHECK(input_error_of([] { parse_json("{\n  \"x\": -123456789e303}", "t"); }) ==
        "t:2:8: number -123456789e303 does not fit a double");
}

TEST_CASE("json: each syntax error names the place and what was read") {
  const std::pair<const char*, const char*> cases[] = {
      {"{\"a\": 1,}", "t:1:9: syntax error while parsing object key - unexpected '}'; expected string literal"},
      {"[1, 2,]", "t:1:7: syntax error while parsing value - unexpected ']'"},
      {"{\"loss\": NaN}", "t:1:10: syntax error while parsing value - invalid literal"},
      {"[Infinity]", "t:1:2: syntax error while parsing value - invalid literal"},
      {"[01]", "t:1:3: syntax error while parsing array - unexpected number literal; expected ']'"},
      {"[1.]", "t:1:4: syntax error while parsing value - invalid number; expected digit after '.'"},
      {"[-]", "t:1:3: syntax error while parsing value - invalid number; expected digit after '-'"},
      {"\"abc", "t:1:5: syntax error while parsing value - invalid string: missing closing quote"},
      {"\"a\tb\"", "t:1:3: syntax error while parsing value - invalid string: control character U+0009 (HT)"},
      {"\"\\x\"", "t:1:3: syntax error while parsing value - invalid string: forbidden character after backslash"},
      {"\"\\ud800\"",
       "t:1:8: syntax error while parsing value - invalid string: surrogate U+D800..U+DBFF must be followed by "
       "U+DC00..U+DFFF"},
      {"\"a\xff\"", "t:1:3: syntax error while parsing value - invalid string: ill-formed UTF-8 byte"},
      {"{} {}", "t:1:4: syntax error while parsing value - unexpected '{'; expected end of input"},
      {"", "t:1:1: syntax error while parsing value - unexpected end of input"},
      {"{\n  \"a\" 1\n}",
       "t:2:7: syntax error while parsing object separator - unexpected number literal; expected ':'"},
      {"[1 2]", "t:1:4: syntax error while parsing array - unexpected number literal; expected ']'"},
      {"tru", "t:1:4: syntax error while parsing value - invalid literal; last read: 'tru'"},
      {"// a comment\n{}", "t:1:1: syntax error while parsing value - invalid literal"},
      {"{\"a\": 1, \"a\": 2}", "t:1:12: duplicate member \"a\""},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    // Clang 14 cannot capture a structured binding (C++20 allows it; Clang
    // 16 implements it): the lambda captures a plain variable.
    const char* input = text;
    CHECK_THAT(input_error_of([&] { parse_json(input, "t"); }), Catch::StartsWith(message));
  }
}

TEST_CASE("json: a message quotes at most the end of a long token") {
  const std::string long_string = "\"" + std::string(100000, 'x') + "\xff\"";
  const std::string error = input_error_of([&] { parse_json(long_string, "t"); });
  CHECK_THAT(error,
             Catch::StartsWith("t:1:100002: syntax error while parsing value - invalid string: ill-formed UTF-8 byte; "
                               "last read: '..."));
  CHECK(error.size() < 200);
  const std::string long_key = "{\"" + std::string(100000, 'k') + "\": 1, \"" + std::string(100000, 'k') + "\": 2}";
  CHECK(input_error_of([&] { parse_json(long_key, "t"); }).size() < 100);
}

TEST_CASE("json: nesting is bounded while reading, so a hostile file cannot exhaust the stack") {
  const size_t max = frugal::simulate::kMaxJsonDepth;
  const std::string deepest = std::string(max, '[') + std::string(max, ']');
  CHECK(parse_json(deepest, "t").is_array());
  const std::string one_more = std::string(max + 1, '[') + std::string(max + 1, ']');
  CHECK(input_error_of([&] { parse_json(one_more, "t"); }) == "t:1:129: nesting deeper than 128 levels");
  // A depth bomb, unterminated and with objects too: refused at the first
  // level too many, not after reading (or recursing into) the rest.
  const std::string bomb(100000, '[');
  CHECK(input_error_of([&] { parse_json(bomb, "t"); }) == "t:1:129: nesting deeper than 128 levels");
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":\n";
  CHECK(input_error_of([&] { parse_json(objects, "t"); }) == "t:129:1: nesting deeper than 128 levels");
}

TEST_CASE("json: a document of more values than the limit is refused where it passes it") {
  // The counting at a small limit (the readers' 4 Mi values, through
  // read_trace, is in test_trace_readers.cpp): members, nested arrays and
  // objects count once each, as scalars do.
  for (const size_t max : {size_t{2}, size_t{7}, size_t{1000}}) {
    std::string at_limit = "[";  // the array itself is one value
    for (size_t i = 1; i < max; ++i) at_limit += i == 1 ? "0" : ",0";
    at_limit += "]";
    CHECK(parse_json(at_limit, "t", max).size() == max - 1);
    const std::string over = at_limit.substr(0, at_limit.size() - 1) + ",0]";
    // The value past the limit is the last 0: the parser has read it and the "]" after it.
    CHECK(input_error_of([&] { parse_json(over, "t", max); }) ==
          fmt::format("t:1:{}: more than {} values in one document", over.size(), max));
  }
  CHECK(parse_json(R"({"a": [1, {"b": null}]})", "t", 5).size() == 1);
  CHECK(input_error_of([] { parse_json(R"({"a": [1, {"b": null}]})", "t", 4); }) ==
        "t:1:20: more than 4 values in one document");
  // The default is the readers' limit.
  CHECK(parse_json("[0,0,0]", "t").size() == 3);
}
