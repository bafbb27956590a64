// frugal_options: typed named values and their type rules.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "frugal/sdk/host.hpp"

using namespace frugal;

namespace {
struct Outcome {
  int code;
  std::string message;
};
Outcome outcome(frugal_error* error) {
  Outcome result{frugal_error_code(error), frugal_error_message(error)};
  frugal_error_destroy(error);
  return result;
}
}  // namespace

TEST_CASE("values read back with their types; absent names give the default") {
  auto options = host::make_options();
  host::check(frugal_options_set_int(options.get(), "steps", 1234567890123));
  host::check(frugal_options_set_double(options.get(), "lr", 3e-4));
  host::check(frugal_options_set_bool(options.get(), "resume", 7));
  host::check(frugal_options_set_string(options.get(), "store", "/mnt/ckpt"));
  int64_t i = 0;
  double d = 0;
  int32_t b = 0;
  const char* s = nullptr;
  host::check(frugal_options_get_int(options.get(), "steps", 0, &i));
  host::check(frugal_options_get_double(options.get(), "lr", 0, &d));
  host::check(frugal_options_get_bool(options.get(), "resume", 0, &b));
  host::check(frugal_options_get_string(options.get(), "store", nullptr, &s));
  CHECK(i == 1234567890123);
  CHECK(d == 3e-4);
  CHECK(b == 1);
  CHECK(std::string(s) == "/mnt/ckpt");
  host::check(frugal_options_get_int(options.get(), "absent", -5, &i));
  CHECK(i == -5);
  host::check(frugal_options_get_string(nullptr, "absent", "dflt", &s));
  CHECK(std::string(s) == "dflt");
  CHECK(frugal_options_type(options.get(), "lr") == FRUGAL_OPTION_DOUBLE);
  CHECK(frugal_options_type(options.get(), "absent") == 0);
}

TEST_CASE("an int reads as a double; every other mismatch is an error naming the option") {
  auto options = host::make_options();
  host::check(frugal_options_set_int(options.get(), "n", 3));
  host::check(frugal_options_set_double(options.get(), "x", 2.5));
  double d = 0;
  host::check(frugal_options_get_double(options.get(), "n", 0, &d));
  CHECK(d == 3.0);
  int64_t i = 99;
  const auto result = outcome(frugal_options_get_int(options.get(), "x", 0, &i));
  CHECK(result.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(result.message == "option 'x' has type double; expected int");
  CHECK(i == 99);
  int32_t b = 0;
  CHECK(outcome(frugal_options_get_bool(options.get(), "n", 0, &b)).message ==
        "option 'n' has type int; expected bool");
}

TEST_CASE("setting a name again replaces value and type, keeping its position") {
  auto options = host::make_options();
  host::check(frugal_options_set_int(options.get(), "a", 1));
  host::check(frugal_options_set_int(options.get(), "b", 2));
  host::check(frugal_options_set_string(options.get(), "a", "now text"));
  REQUIRE(frugal_options_count(options.get()) == 2);
  const char* name = nullptr;
  int32_t type = 0;
  host::check(frugal_options_entry(options.get(), 0, &name, &type));
  CHECK(std::string(name) == "a");
  CHECK(type == FRUGAL_OPTION_STRING);
  CHECK(outcome(frugal_options_entry(options.get(), 2, &name, &type)).code == FRUGAL_ERR_OUT_OF_RANGE);
}

TEST_CASE("parsed text picks the type a command line means") {
  auto options = host::make_options();
  const std::pair<const char*, int32_t> cases[] = {
      {"true", FRUGAL_OPTION_BOOL},  {"false", FRUGAL_OPTION_BOOL},    {"42", FRUGAL_OPTION_INT},
      {"-7", FRUGAL_OPTION_INT},     {"1e-3", FRUGAL_OPTION_DOUBLE},   {"0.5", FRUGAL_OPTION_DOUBLE},
      {"inf", FRUGAL_OPTION_DOUBLE}, {"cosine", FRUGAL_OPTION_STRING}, {"12abc", FRUGAL_OPTION_STRING},
      {"", FRUGAL_OPTION_STRING},    {" 5", FRUGAL_OPTION_STRING}};
  for (const auto& [text, type] : cases) {
    host::check(frugal_options_set_parsed(options.get(), "v", text));
    INFO("text '" << text << "'");
    CHECK(frugal_options_type(options.get(), "v") == type);
  }
  double d = 0;
  host::check(frugal_options_set_parsed(options.get(), "v", "inf"));
  host::check(frugal_options_get_double(options.get(), "v", 0, &d));
  CHECK(std::isinf(d));
}

TEST_CASE("invalid names and NULL arguments are refused clearly") {
  auto options = host::make_options();
  CHECK(outcome(frugal_options_set_int(options.get(), "", 1)).message.find("1..128 bytes") != std::string::npos);
  CHECK(outcome(frugal_options_set_int(options.get(), "has space", 1)).message.find("outside [A-Za-z0-9_.-]") !=
        std::string::npos);
  CHECK(outcome(frugal_options_set_int(options.get(), std::string(129, 'a').c_str(), 1)).code ==
        FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome(frugal_options_set_int(nullptr, "a", 1)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome(frugal_options_set_string(options.get(), "a", nullptr)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome(frugal_options_get_int(options.get(), "a", 0, nullptr)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome(frugal_options_create(nullptr)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(frugal_options_count(options.get()) == 0);
  frugal_options_destroy(nullptr);
}

TEST_CASE("strings handed out stay put while other names are added") {
  auto options = host::make_options();
  host::check(frugal_options_set_string(options.get(), "store", "/mnt/ckpt"));
  const char* store = nullptr;
  host::check(frugal_options_get_string(options.get(), "store", nullptr, &store));
  for (int i = 0; i < 200; ++i)
    host::check(frugal_options_set_int(options.get(), ("n" + std::to_string(i)).c_str(), i));
  const char* again = nullptr;
  host::check(frugal_options_get_string(options.get(), "store", nullptr, &again));
  CHECK(again == store);
  CHECK(std::string(store) == "/mnt/ckpt");
}

TEST_CASE("a refused setter leaves the options unchanged") {
  auto options = host::make_options();
  host::check(frugal_options_set_int(options.get(), "n", 5));
  CHECK(outcome(frugal_options_set_string(options.get(), "n", nullptr)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome(frugal_options_set_parsed(options.get(), "bad name", "1")).code == FRUGAL_ERR_INVALID_ARGUMENT);
  int64_t n = 0;
  host::check(frugal_options_get_int(options.get(), "n", 0, &n));
  CHECK(n == 5);
  CHECK(frugal_options_count(options.get()) == 1);
}
