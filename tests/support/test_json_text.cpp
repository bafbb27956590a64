// support/json: the one way the tools write JSON. Whatever bytes a string
// holds, the text is ASCII, parses back, and keeps every valid character;
// what JSON cannot hold becomes null; members keep the order they were set.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "json_text.hpp"

using frugal::json::Json;
using frugal::json::json_text;

TEST_CASE("json_text: control characters, DEL, C1 controls and non-ASCII are escaped, the text is ASCII") {
  // ESC [ 2 J, BEL, DEL, U+009B (C1 CSI), e acute, an emoji (a surrogate pair).
  const std::string hostile = "\x1b[2J\x07\x7f\xc2\x9b\xc3\xa9\xf0\x9f\x98\x80\"\\";
  const std::string text = json_text(Json{{"s", hostile}}, -1);
  CHECK(text == R"({"s":"\u001b[2J\u0007\u007f\u009b\u00e9\ud83d\ude00\"\\"})");
  CHECK(std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; }));
  CHECK(nlohmann::json::parse(text)["s"] == hostile);
}

TEST_CASE("json_text: each byte of invalid UTF-8 becomes U+FFFD") {
  // A stray continuation byte, an overlong lead, a UTF-8-encoded surrogate,
  // a byte that never starts a sequence, a sequence cut short at the end.
  const std::string text = json_text(Json("a\x80"
                                          "b\xc0\xaf"
                                          "c\xed\xa0\x80"
                                          "d\xff"
                                          "e\xe2\x82"),
                                     -1);
  CHECK(text == R"("a\ufffdb\ufffd\ufffdc\ufffd\ufffd\ufffdd\ufffde\ufffd")");
  CHECK(nlohmann::json::parse(text).get<std::string>().find('\xff') == std::string::npos);
}

TEST_CASE("json_text: NaN and infinities are null, numbers round-trip, counts stay integers") {
  const double third = 1.0 / 3.0;
  const Json value = {{"nan", std::nan("")},
                      {"inf", std::numeric_limits<double>::infinity()},
                      {"-inf", -std::numeric_limits<double>::infinity()},
                      {"third", third},
                      {"big", 1e300},
                      {"count", uint64_t{18446744073709551615u}},
                      {"whole", 3.0}};
  const std::string text = json_text(value, -1);
  CHECK(text.find(R"("nan":null,"inf":null,"-inf":null)") != std::string::npos);
  CHECK(text.find(R"("count":18446744073709551615)") != std::string::npos);
  CHECK(text.find(R"("whole":3.0)") != std::string::npos);
  const auto back = nlohmann::json::parse(text);
  CHECK(back["third"].get<double>() == third);
  CHECK(back["big"].get<double>() == 1e300);
}

TEST_CASE("json_text: members in the order they were set, indented, no trailing newline") {
  Json value = Json::object();
  value["zeta"] = 1;
  value["alpha"] = Json::array({true, nullptr});
  CHECK(json_text(value) == "{\n  \"zeta\": 1,\n  \"alpha\": [\n    true,\n    null\n  ]\n}");
  CHECK(json_text(value, -1) == R"({"zeta":1,"alpha":[true,null]})");
}
