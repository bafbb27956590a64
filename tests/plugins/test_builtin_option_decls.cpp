// Every strategy of the six built-in plugins declares its options,
// and each declaration says what create accepts: the strategy is made with
// its required options alone, every declared default and bound is
// accepted, one step outside a bound is OUT_OF_RANGE and a string outside
// its choices INVALID_ARGUMENT, each naming the option. Everything goes
// through the core's create functions, as a host calls them.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "frugal/context.h"
#include "frugal/error.h"
#include "frugal/options.h"
#include "frugal/packer.h"
#include "frugal/quantizer.h"
#include "frugal/router.h"
#include "frugal/schedule.h"
#include "frugal/scheduler.h"
#include "frugal/store.h"
#include "test_helpers.hpp"

using frugal::test::builtin_path;
using frugal::test::Outcome;
using frugal::test::outcome;

namespace {

constexpr const char* kBuiltins[] = {"schedule_lr", "policy_cost", "store_fs", "packer_seq", "quant_fp8", "router_moe"};

// Text as frugal_options_set_parsed reads it (how defaults are spelt), or a typed value.
struct Text {
  std::string text;
};
using Value = std::variant<Text, int64_t, double, std::string>;
using Setting = std::pair<std::string, Value>;

// Options a strategy needs besides its built required options, because a
// constraint between options refuses what the declarations alone give.
// option nullptr: for every create of the strategy; else only while that
// option is the one under test.
struct Extra {
  const char* strategy;
  const char* option;
  std::vector<std::pair<const char*, const char*>> set;
};
const Extra kExtras[] = {
    // The built experts (its min, 1) is below the default k (2, 8): k <= experts.
    {"topk_softmax", nullptr, {{"k", "1"}}},
    {"deepseek_v3", nullptr, {{"k", "1"}}},
    // k's default (8 for deepseek_v3) needs that many experts.
    {"topk_softmax", "k", {{"experts", "8"}}},
    {"deepseek_v3", "k", {{"experts", "8"}}},
    // A drop policy needs a capacity (capacity_factor 0 routes dropless).
    {"topk_softmax", "drop_policy", {{"capacity_factor", "1"}}},
    {"deepseek_v3", "drop_policy", {{"capacity_factor", "1"}}},
    // quant_fp8 refuses a recipe's options under any other recipe.
    {"quant_fp8", "axis", {{"recipe", "per_channel"}}},
    {"quant_fp8", "block_rows", {{"recipe", "block"}}},
    {"quant_fp8", "block_cols", {{"recipe", "block"}}},
};

struct Strategy {
  int32_t kind;
  std::string name;
  std::vector<frugal_option_info> options;
};

// Fresh directories for store roots, all under one folder removed at the end.
class TempDirs {
 public:
  TempDirs() : base_(std::filesystem::temp_directory_path() / ("frugal_builtin_decls_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(base_);
    std::filesystem::create_directories(base_);
  }
  ~TempDirs() {
    std::error_code ignored;
    std::filesystem::remove_all(base_, ignored);
  }
  TempDirs(const TempDirs&) = delete;
  TempDirs& operator=(const TempDirs&) = delete;
  // A path that does not exist yet: the store creates it.
  std::string fresh() { return (base_ / ("root" + std::to_string(next_++))).string(); }

 private:
  std::filesystem::path base_;
  int next_ = 0;
};

// A context with the six built-in plugins loaded, and their strategies.
struct Builtins {
  frugal::host::ContextPtr context = frugal::host::make_context();
  std::vector<Strategy> strategies;
  TempDirs dirs;

  Builtins() {
    REQUIRE(frugal_context_set_log_callback(context.get(), nullptr, nullptr, FRUGAL_LOG_OFF) == nullptr);
    for (const char* plugin : kBuiltins) {
      const auto loaded = outcome(frugal_context_load_plugin(context.get(), builtin_path(plugin).c_str()));
      INFO(plugin << ": " << loaded.message);
      REQUIRE(loaded.code == FRUGAL_OK);
    }
    REQUIRE(frugal_context_plugin_count(context.get()) == std::size(kBuiltins));
    for (size_t p = 0; p < std::size(kBuiltins); ++p) {
      frugal_plugin_info plugin{};
      plugin.struct_size = sizeof plugin;
      REQUIRE(frugal_context_plugin_info(context.get(), p, &plugin) == nullptr);
      REQUIRE(plugin.strategy_count > 0);
      for (size_t s = 0; s < plugin.strategy_count; ++s) {
        frugal_strategy_info info{};
        info.struct_size = sizeof info;
        REQUIRE(frugal_context_strategy_info(context.get(), p, s, &info) == nullptr);
        Strategy strategy{info.kind, info.name, {}};
        for (size_t o = 0; o < info.option_count; ++o) {
          frugal_option_info option{};
          option.struct_size = sizeof option;
          REQUIRE(frugal_context_strategy_option(context.get(), p, s, o, &option) == nullptr);
          strategy.options.push_back(option);
        }
        strategies.push_back(std::move(strategy));
      }
    }
  }
};

bool has(const frugal_option_info& o, uint32_t flag) { return (o.flags & flag) != 0; }

void set(frugal_options* options, const std::string& name, const Value& value) {
  frugal_error* error = std::visit(
      [&](const auto& v) -> frugal_error* {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Text>) return frugal_options_set_parsed(options, name.c_str(), v.text.c_str());
        if constexpr (std::is_same_v<T, int64_t>) return frugal_options_set_int(options, name.c_str(), v);
        if constexpr (std::is_same_v<T, double>) return frugal_options_set_double(options, name.c_str(), v);
        if constexpr (std::is_same_v<T, std::string>)
          return frugal_options_set_string(options, name.c_str(), v.c_str());
      },
      value);
  const auto result = outcome(error);
  INFO("setting " << name << ": " << result.message);
  REQUIRE(result.code == FRUGAL_OK);
}

// The value a required option is given: min (int, double) or 1, a fresh
// directory, the first choice.
Value built_value(const frugal_option_info& o, TempDirs& dirs) {
  switch (o.type) {
    case FRUGAL_OPTION_INT: return has(o, FRUGAL_OPTION_DECL_HAS_MIN) ? static_cast<int64_t>(o.min) : int64_t{1};
    case FRUGAL_OPTION_DOUBLE: return has(o, FRUGAL_OPTION_DECL_HAS_MIN) ? o.min : 1.0;
    case FRUGAL_OPTION_BOOL: return Text{"false"};
    default: break;
  }
  if (has(o, FRUGAL_OPTION_DECL_DIRECTORY)) return dirs.fresh();
  REQUIRE(o.choices != nullptr);  // a required free-form string has no value the test could build
  const std::string choices = o.choices;
  return choices.substr(0, choices.find('|'));
}

// Makes one object with `make`, destroys it, and returns what make said.
template <typename Handle>
Outcome make_and_destroy(frugal_error* (*make)(frugal_context*, const char*, const frugal_options*, Handle**),
                         void (*destroy)(Handle*), frugal_context* context, const char* name,
                         const frugal_options* options) {
  Handle* out = nullptr;
  const auto result = outcome(make(context, name, options, &out));
  destroy(out);
  return result;
}

// Creates strategy `s` through the core with `options`, then destroys it.
Outcome create(frugal_context* context, const Strategy& s, const frugal_options* options) {
  const char* name = s.name.c_str();
  switch (s.kind) {
    case FRUGAL_KIND_SCHEDULE:
      return make_and_destroy(&frugal_schedule_create, &frugal_schedule_destroy, context, name, options);
    case FRUGAL_KIND_STORE:
      return make_and_destroy(&frugal_store_create, &frugal_store_destroy, context, name, options);
    case FRUGAL_KIND_PACKER:
      return make_and_destroy(&frugal_packer_create, &frugal_packer_destroy, context, name, options);
    case FRUGAL_KIND_QUANTIZER:
      return make_and_destroy(&frugal_quantizer_create, &frugal_quantizer_destroy, context, name, options);
    case FRUGAL_KIND_ROUTER:
      return make_and_destroy(&frugal_router_create, &frugal_router_destroy, context, name, options);
    case FRUGAL_KIND_POLICY: {  // a policy is made by the scheduler that runs it
      const char* names[] = {name};
      const frugal_options* policy_options[] = {options};
      frugal_scheduler_config config{};
      config.struct_size = sizeof config;
      config.policies = names;
      config.policy_options = policy_options;
      config.policy_count = 1;
      frugal_scheduler* out = nullptr;
      const auto result = outcome(frugal_scheduler_create(context, &config, &out));
      frugal_scheduler_destroy(out);
      return result;
    }
    default: FAIL("strategy " << s.name << " has kind " << s.kind << ", which this test does not create");
  }
  return {};
}

// Creates `s` with its built required options, its extras (those for
// `under_test` too) and then `settings`, in that order (a later value
// replaces an earlier one).
Outcome create_with(Builtins& b, const Strategy& s, const char* under_test, const std::vector<Setting>& settings) {
  auto options = frugal::host::make_options();
  // The packer's limits are the core's options (frugal_packer_create), not the strategy's.
  if (s.kind == FRUGAL_KIND_PACKER) set(options.get(), "max_len", int64_t{64});
  for (const auto& o : s.options)
    if (has(o, FRUGAL_OPTION_DECL_REQUIRED)) set(options.get(), o.name, built_value(o, b.dirs));
  for (const Extra& extra : kExtras) {
    const bool applies =
        extra.option == nullptr || (under_test != nullptr && std::strcmp(extra.option, under_test) == 0);
    if (s.name == extra.strategy && applies)
      for (const auto& [name, text] : extra.set) set(options.get(), name, Text{text});
  }
  for (const auto& [name, value] : settings) set(options.get(), name, value);
  return create(b.context.get(), s, options.get());
}

std::string describe(const Value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Text>) return "'" + x.text + "' (parsed)";
        if constexpr (std::is_same_v<T, std::string>) return "'" + x + "'";
        if constexpr (std::is_same_v<T, double>) {
          char text[64];
          std::snprintf(text, sizeof text, "%.17g", x);
          return text;
        }
        if constexpr (std::is_same_v<T, int64_t>) return std::to_string(x);
      },
      v);
}

void expect_accepted(Builtins& b, const Strategy& s, const frugal_option_info& o, const Value& v) {
  const Outcome result = create_with(b, s, o.name, {{o.name, v}});
  INFO(s.name << ": " << o.name << " = " << describe(v) << " must be accepted: " << result.message);
  CHECK(result.code == FRUGAL_OK);
}

void expect_refused(Builtins& b, const Strategy& s, const frugal_option_info& o, const Value& v, int32_t code) {
  const Outcome result = create_with(b, s, o.name, {{o.name, v}});
  INFO(s.name << ": " << o.name << " = " << describe(v) << " must be refused: " << result.message);
  CHECK(result.code == code);
  CHECK_THAT(result.message, Catch::Contains("'" + std::string(o.name) + "'"));
}

// A value one step outside `bound` on the side away from the accepted range.
Value outside(const frugal_option_info& o, double bound, bool below) {
  if (o.type == FRUGAL_OPTION_INT) return static_cast<int64_t>(bound) + (below ? -1 : 1);
  return std::nextafter(bound,
                        below ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
}

Value at(const frugal_option_info& o, double bound) {
  if (o.type == FRUGAL_OPTION_INT) return static_cast<int64_t>(bound);
  return bound;
}

}  // namespace

TEST_CASE("built-in strategies: every one declares its options, and the core refuses any other") {
  Builtins b;
  REQUIRE(b.strategies.size() >= std::size(kBuiltins));
  for (const Strategy& s : b.strategies) {
    INFO(s.name);
    // Each built-in strategy reads options; one that read none would
    // declare an empty list, and this would still refuse every option.
    CHECK(!s.options.empty());
    const Outcome unknown = create_with(b, s, nullptr, {{"no_such_option", int64_t{1}}});
    INFO(unknown.message);
    CHECK(unknown.code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK_THAT(unknown.message, Catch::Contains("unknown option 'no_such_option'"));
    for (const auto& o : s.options) {
      INFO(o.name);
      CHECK(std::strlen(o.doc) > 0);
      CHECK(!(has(o, FRUGAL_OPTION_DECL_REQUIRED) && o.default_value != nullptr));
    }
  }
}

TEST_CASE("built-in strategies: each is created with only its required options") {
  Builtins b;
  for (const Strategy& s : b.strategies) {
    const Outcome result = create_with(b, s, nullptr, {});
    INFO(s.name << ": " << result.message);
    CHECK(result.code == FRUGAL_OK);
    // And without them, the core names the first one declared.
    for (const auto& o : s.options) {
      if (!has(o, FRUGAL_OPTION_DECL_REQUIRED)) continue;
      auto options = frugal::host::make_options();
      if (s.kind == FRUGAL_KIND_PACKER) set(options.get(), "max_len", int64_t{64});
      const Outcome missing = create(b.context.get(), s, options.get());
      INFO(missing.message);
      CHECK(missing.code == FRUGAL_ERR_INVALID_ARGUMENT);
      CHECK_THAT(missing.message, Catch::Contains("option '" + std::string(o.name) + "' is required"));
      break;
    }
  }
}

TEST_CASE("built-in strategies: each declared default, given explicitly, is accepted") {
  Builtins b;
  size_t defaults = 0;
  for (const Strategy& s : b.strategies)
    for (const auto& o : s.options) {
      if (o.default_value == nullptr) continue;
      ++defaults;
      expect_accepted(b, s, o, Text{o.default_value});
    }
  CHECK(defaults > 0);
}

TEST_CASE("built-in strategies: each declared bound is accepted and one step outside it is OUT_OF_RANGE") {
  Builtins b;
  size_t bounds = 0;
  for (const Strategy& s : b.strategies)
    for (const auto& o : s.options) {
      if (has(o, FRUGAL_OPTION_DECL_HAS_MIN)) {
        ++bounds;
        expect_accepted(b, s, o, at(o, o.min));
        expect_refused(b, s, o, outside(o, o.min, true), FRUGAL_ERR_OUT_OF_RANGE);
      }
      if (has(o, FRUGAL_OPTION_DECL_HAS_MAX)) {
        ++bounds;
        expect_accepted(b, s, o, at(o, o.max));
        expect_refused(b, s, o, outside(o, o.max, false), FRUGAL_ERR_OUT_OF_RANGE);
      }
    }
  CHECK(bounds > 0);
}

TEST_CASE("built-in strategies: each declared choice is accepted and any other string is INVALID_ARGUMENT") {
  Builtins b;
  size_t with_choices = 0;
  for (const Strategy& s : b.strategies)
    for (const auto& o : s.options) {
      if (o.choices == nullptr) continue;
      ++with_choices;
      const std::string choices = o.choices;
      for (size_t start = 0; start <= choices.size();) {
        const size_t bar = std::min(choices.find('|', start), choices.size());
        expect_accepted(b, s, o, choices.substr(start, bar - start));
        start = bar + 1;
      }
      expect_refused(b, s, o, std::string("no_such_choice"), FRUGAL_ERR_INVALID_ARGUMENT);
    }
  CHECK(with_choices > 0);
}
