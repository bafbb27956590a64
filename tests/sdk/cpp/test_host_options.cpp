// host::Options: each C++ type stores exactly one option type, with no
// silent conversion (an int literal is INT, a string literal STRING).
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>

#include "frugal/sdk/host.hpp"

using namespace frugal;

namespace {

int32_t type_of(const host::Options& o, const char* name) { return frugal_options_type(o.get(), name); }

// set(name, value) is offered for V.
template <typename V>
constexpr bool settable = requires(host::Options& o, V v) {
  o.set("k", v);
};

}  // namespace

// Characters are not numbers and pointers are not booleans.
static_assert(!settable<char>);
static_assert(!settable<const void*>);
static_assert(settable<int> && settable<uint64_t> && settable<float> && settable<bool> && settable<std::string>);

TEST_CASE("host::Options stores each C++ type as its one option type") {
  host::Options o;
  o.set("int", 8).set("long", int64_t{-5}).set("unsigned", 7u).set("double", 3e-4).set("float", 1.5f);
  o.set("yes", true).set("no", false).set("text", "cosine").set("owned", std::string("linear"));

  CHECK(type_of(o, "int") == FRUGAL_OPTION_INT);
  CHECK(type_of(o, "long") == FRUGAL_OPTION_INT);
  CHECK(type_of(o, "unsigned") == FRUGAL_OPTION_INT);
  CHECK(type_of(o, "double") == FRUGAL_OPTION_DOUBLE);
  CHECK(type_of(o, "float") == FRUGAL_OPTION_DOUBLE);
  CHECK(type_of(o, "yes") == FRUGAL_OPTION_BOOL);
  CHECK(type_of(o, "no") == FRUGAL_OPTION_BOOL);
  CHECK(type_of(o, "text") == FRUGAL_OPTION_STRING);
  CHECK(type_of(o, "owned") == FRUGAL_OPTION_STRING);
  CHECK(frugal_options_count(o.get()) == 9);

  int64_t i = 0;
  host::check(frugal_options_get_int(o.get(), "int", 0, &i));
  CHECK(i == 8);
  host::check(frugal_options_get_int(o.get(), "long", 0, &i));
  CHECK(i == -5);
  double d = 0.0;
  host::check(frugal_options_get_double(o.get(), "double", 0.0, &d));
  CHECK(d == 3e-4);
  host::check(frugal_options_get_double(o.get(), "float", 0.0, &d));
  CHECK(d == 1.5);
  int32_t b = -1;
  host::check(frugal_options_get_bool(o.get(), "no", 1, &b));
  CHECK(b == 0);
  const char* s = nullptr;
  host::check(frugal_options_get_string(o.get(), "text", nullptr, &s));
  CHECK(std::string(s) == "cosine");
  host::check(frugal_options_get_string(o.get(), "owned", nullptr, &s));
  CHECK(std::string(s) == "linear");
}

TEST_CASE("setting a name again replaces its value and type") {
  host::Options o;
  o.set("warmup", 100).set("warmup", 0.5);
  CHECK(type_of(o, "warmup") == FRUGAL_OPTION_DOUBLE);
  CHECK(frugal_options_count(o.get()) == 1);
  o.set_parsed("flag", "true");
  CHECK(type_of(o, "flag") == FRUGAL_OPTION_BOOL);
}

TEST_CASE("values an option cannot hold are refused naming the option") {
  host::Options o;
  try {
    o.set("huge", std::numeric_limits<uint64_t>::max());
    FAIL("2^64-1 was stored as an INT");
  } catch (const host::Exception& e) {
    CHECK(e.code() == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(std::string(e.what()) == "option 'huge': 18446744073709551615 does not fit an INT (int64)");
  }
  try {
    o.set("missing", static_cast<const char*>(nullptr));
    FAIL("a NULL string was stored");
  } catch (const host::Exception& e) {
    CHECK(e.code() == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(std::string(e.what()) == "option 'missing': string value is NULL");
  }
  try {
    o.set("bad name!", 1);
    FAIL("an invalid option name was accepted");
  } catch (const host::Exception& e) {
    CHECK(e.code() == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK_THAT(e.what(), Catch::Contains("bad name!"));
  }
  CHECK(frugal_options_count(o.get()) == 0);
}
