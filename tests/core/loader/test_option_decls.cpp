// Option declarations (frugal_strategy_options_ext): the loader
// copies valid ones and refuses malformed ones naming strategy and option;
// hosts read them back through frugal_context_strategy_option.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <utility>

#include "frugal/context.h"
#include "frugal/error.h"
#include "frugal/options.h"
#include "frugal/schedule.h"
#include "frugal/scheduler.h"
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
  ContextHolder() {
    REQUIRE(frugal_context_create(&p) == nullptr);
    REQUIRE(frugal_context_set_log_callback(p, nullptr, nullptr, 0) == nullptr);
  }
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

namespace {

// An owned frugal_options filled from "name=value" texts, parsed as a host's
// command line would be.
struct OptionsHolder {
  frugal_options* p = nullptr;
  explicit OptionsHolder(std::initializer_list<std::pair<const char*, const char*>> values) {
    REQUIRE(frugal_options_create(&p) == nullptr);
    for (const auto& [name, text] : values) REQUIRE(frugal_options_set_parsed(p, name, text) == nullptr);
  }
  ~OptionsHolder() { frugal_options_destroy(p); }
};

frugal::test::Outcome create_schedule(frugal_context* context, const frugal_options* options) {
  frugal_schedule* schedule = nullptr;
  auto result = outcome(frugal_schedule_create(context, "decl", options, &schedule));
  if (result.code == 0) {
    double lr = 0.0;
    REQUIRE(frugal_schedule_lr(schedule, 0, &lr) == nullptr);
    CHECK(lr >= 0.0);
  }
  frugal_schedule_destroy(schedule);
  return result;
}

}  // namespace

TEST_CASE("the core checks given options against the declarations before create", "[option_decls]") {
  ContextHolder ctx;
  REQUIRE(load_with_fault(ctx.p, "none").code == 0);
  struct Case {
    std::initializer_list<std::pair<const char*, const char*>> options;
    int32_t code;         // 0: accepted
    const char* message;  // a piece of the error
  };
  const Case cases[] = {
      {{{"steps", "1"}}, 0, ""},
      {{{"steps", "100"}, {"lr", "10"}, {"shape", "b"}, {"flag", "true"}}, 0, ""},
      {{{"steps", "5"}, {"lr", "0"}}, 0, ""},
      {{{"steps", "5"}, {"lr", "3"}}, 0, ""},  // an INT where a double is declared
      {{}, FRUGAL_ERR_INVALID_ARGUMENT, "option 'steps' is required (total steps)"},
      {{{"steps", "0"}}, FRUGAL_ERR_OUT_OF_RANGE, "option 'steps' = 0 is out of range: must be [1, 100]"},
      {{{"steps", "101"}}, FRUGAL_ERR_OUT_OF_RANGE, "must be [1, 100] (total steps)"},
      {{{"steps", "5"}, {"lr", "10.5"}}, FRUGAL_ERR_OUT_OF_RANGE, "option 'lr' = 10.5 is out of range"},
      {{{"steps", "5"}, {"lr", "-0.1"}}, FRUGAL_ERR_OUT_OF_RANGE, "must be [0, 10] (peak rate)"},
      {{{"steps", "5"}, {"lr", "nan"}}, FRUGAL_ERR_OUT_OF_RANGE, "option 'lr' = nan"},
      {{{"steps", "5"}, {"shape", "c"}}, FRUGAL_ERR_INVALID_ARGUMENT, "option 'shape' = 'c' is not one of 'a', 'b'"},
      {{{"steps", "2.5"}}, FRUGAL_ERR_INVALID_ARGUMENT, "option 'steps' = 2.5 has type double; expected int"},
      {{{"steps", "5"}, {"flag", "7"}}, FRUGAL_ERR_INVALID_ARGUMENT, "has type int; expected bool"},
      {{{"steps", "5"}, {"warmup", "3"}},
       FRUGAL_ERR_INVALID_ARGUMENT,
       "unknown option 'warmup' (accepted: lr, steps, shape, flag)"},
  };
  for (const auto& c : cases) {
    OptionsHolder options(c.options);
    const auto result = create_schedule(ctx.p, options.p);
    INFO(result.message);
    CHECK(result.code == c.code);
    CHECK_THAT(result.message, Catch::Contains(c.message));
    if (c.code != 0) CHECK_THAT(result.message, Catch::Contains("schedule 'decl'"));
  }
  // NULL options: as if none were given, so the required one is missing.
  CHECK(create_schedule(ctx.p, nullptr).code == FRUGAL_ERR_INVALID_ARGUMENT);
}

TEST_CASE("the scheduler checks its schedule's options against the declarations", "[option_decls]") {
  ContextHolder ctx;
  REQUIRE(load_with_fault(ctx.p, "none").code == 0);
  OptionsHolder bad({{"steps", "500"}});
  frugal_scheduler_config config{};
  config.struct_size = sizeof config;
  config.schedule = "decl";
  config.schedule_options = bad.p;
  frugal_scheduler* scheduler = nullptr;
  const auto refused = outcome(frugal_scheduler_create(ctx.p, &config, &scheduler));
  CHECK(refused.code == FRUGAL_ERR_OUT_OF_RANGE);
  CHECK_THAT(refused.message, Catch::Contains("schedule 'decl': option 'steps' = 500 is out of range"));
  CHECK(scheduler == nullptr);

  OptionsHolder good({{"steps", "50"}});
  config.schedule_options = good.p;
  REQUIRE(outcome(frugal_scheduler_create(ctx.p, &config, &scheduler)).code == 0);
  frugal_scheduler_destroy(scheduler);
}

TEST_CASE("a declaration with no options refuses every option", "[option_decls]") {
  ContextHolder ctx;
  REQUIRE(load_with_fault(ctx.p, "no_options").code == 0);
  OptionsHolder some({{"lr", "0.1"}});
  const auto result = create_schedule(ctx.p, some.p);
  CHECK(result.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK_THAT(result.message, Catch::Contains("unknown option 'lr' (accepted: none)"));
  CHECK(create_schedule(ctx.p, nullptr).code == 0);
}
