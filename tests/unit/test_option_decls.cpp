// Option declarations (frugal_strategy_options_ext, ABI 1.1): the loader
// copies valid ones and refuses malformed ones naming strategy and option;
// hosts read them back through frugal_context_strategy_option.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdlib>
#include <unistd.h>
#include <filesystem>
#include <string>

#include "frugal/context.h"
#include "frugal/error.h"
#include "test_helpers.hpp"

using frugal::test::outcome;
using frugal::test::plugin_path;

namespace {

// A fresh copy of the option_decls plugin loaded with FRUGAL_TEST_DECL_FAULT
// = fault: each copy is a new file, so its init runs (and reads the fault).
frugal::test::Outcome load_with_fault(frugal_context* context, const std::string& fault) {
  const auto dir = std::filesystem::temp_directory_path() / ("frugal_decls_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto copy = dir / (fault + ".so");
  std::filesystem::copy_file(plugin_path("option_decls"), copy, std::filesystem::copy_options::overwrite_existing);
  ::setenv("FRUGAL_TEST_DECL_FAULT", fault.c_str(), 1);
  auto result = outcome(frugal_context_load_plugin(context, copy.c_str()));
  ::unsetenv("FRUGAL_TEST_DECL_FAULT");
  return result;
}

struct ContextHolder {
  frugal_context* p = nullptr;
  ContextHolder() { REQUIRE(frugal_context_create(&p) == nullptr); frugal_context_set_log_callback(p, nullptr, nullptr, 0); }
  ~ContextHolder() { frugal_context_destroy(p); }
};

}  // namespace

TEST_CASE("declared options are copied and listed", "[option_decls]") {
  ContextHolder ctx;
  REQUIRE(load_with_fault(ctx.p, "none").code == 0);
  frugal_strategy_info info{};
  info.struct_size = sizeof info;
  REQUIRE(frugal_context_strategy_info(ctx.p, 0, 0, &info) == nullptr);
  REQUIRE(info.option_count == 4);

  frugal_option_info option{};
  option.struct_size = sizeof option;
  REQUIRE(frugal_context_strategy_option(ctx.p, 0, 0, 0, &option) == nullptr);
  CHECK(std::string(option.name) == "lr");
  CHECK(option.type == FRUGAL_OPTION_DOUBLE);
  CHECK(option.flags == (FRUGAL_OPTION_DECL_HAS_MIN | FRUGAL_OPTION_DECL_HAS_MAX));
  CHECK(std::string(option.default_value) == "0.001");
  CHECK(option.min == 0.0);
  CHECK(option.max == 10.0);
  CHECK(option.choices == nullptr);
  CHECK(std::string(option.doc) == "peak rate");

  REQUIRE(frugal_context_strategy_option(ctx.p, 0, 0, 1, &option) == nullptr);
  CHECK(std::string(option.name) == "steps");
  CHECK(option.flags == (FRUGAL_OPTION_DECL_REQUIRED | FRUGAL_OPTION_DECL_HAS_MIN | FRUGAL_OPTION_DECL_HAS_MAX));
  CHECK(option.default_value == nullptr);
  REQUIRE(frugal_context_strategy_option(ctx.p, 0, 0, 2, &option) == nullptr);
  CHECK(std::string(option.choices) == "a|b");

  const auto past_end = outcome(frugal_context_strategy_option(ctx.p, 0, 0, 4, &option));
  CHECK(past_end.code == FRUGAL_ERR_OUT_OF_RANGE);
  CHECK_THAT(past_end.message, Catch::Contains("declares 4"));

  // A caller built against a smaller struct gets only what fits.
  frugal_option_info small{};
  small.struct_size = offsetof(frugal_option_info, type);
  REQUIRE(frugal_context_strategy_option(ctx.p, 0, 0, 0, &small) == nullptr);
  CHECK(std::string(small.name) == "lr");
  CHECK(small.type == 0);
}

TEST_CASE("a strategy without declarations has option_count 0", "[option_decls]") {
  ContextHolder ctx;
  REQUIRE(outcome(frugal_context_load_plugin(ctx.p, plugin_path("alpha").c_str())).code == 0);
  frugal_strategy_info info{};
  info.struct_size = sizeof info;
  info.option_count = 99;
  REQUIRE(frugal_context_strategy_info(ctx.p, 0, 0, &info) == nullptr);
  CHECK(info.option_count == 0);
  frugal_option_info option{};
  option.struct_size = sizeof option;
  CHECK(outcome(frugal_context_strategy_option(ctx.p, 0, 0, 0, &option)).code == FRUGAL_ERR_OUT_OF_RANGE);
}

TEST_CASE("malformed declarations refuse the plugin, naming strategy and option", "[option_decls]") {
  struct Case {
    const char* fault;
    const char* option;  // the option the message must name
    const char* reason;  // and a piece of the reason
  };
  const Case cases[] = {
      {"bad_type", "'lr'", "has type 9"},
      {"bad_name", "no spaces", "outside [A-Za-z0-9_.-]"},
      {"duplicate", "'lr'", "declared twice"},
      {"min_above_max", "'lr'", "min 20 is greater than max 10"},
      {"default_out_of_range", "'lr'", "default '11'"},
      {"default_wrong_type", "'lr'", "expected double"},
      {"default_not_a_choice", "'shape'", "not one of 'a', 'b'"},
      {"required_with_default", "'steps'", "required and has a default"},
      {"null_doc", "'flag'", "NULL doc"},
      {"multiline_doc", "'flag'", "one line"},
      {"bound_on_string", "'shape'", "cannot have min or max"},
      {"fractional_int_bound", "'steps'", "not an integer"},
      {"empty_choice", "'shape'", "empty entry"},
      {"two_extensions", "", "two option declarations"},
      {"undersized_decl", "options[3]", "struct_size is 16 bytes"},
  };
  for (const auto& c : cases) {
    SECTION(c.fault) {
      ContextHolder ctx;
      const auto result = load_with_fault(ctx.p, c.fault);
      INFO(result.message);
      CHECK(result.code == FRUGAL_ERR_PLUGIN_INVALID);
      CHECK_THAT(result.message, Catch::Contains("schedule strategy 'decl'"));
      CHECK_THAT(result.message, Catch::Contains(c.option));
      CHECK_THAT(result.message, Catch::Contains(c.reason));
      CHECK(frugal_context_plugin_count(ctx.p) == 0);
    }
  }
}
