// The loader against plugins that break the contract one way each: every
// one is refused with an error naming the file and the reason, is recorded
// as a load failure, and the host keeps working afterwards.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "test_helpers.hpp"

using namespace frugal;
using frugal::test::outcome;
using frugal::test::plugin_path;

namespace {

#define FRUGAL_TEST_STR_(x) #x
#define FRUGAL_TEST_STR(x) FRUGAL_TEST_STR_(x)
// "this core speaks ABI <major>.<minor>", from the headers this core was built with.
constexpr const char* kCoreSpeaks =
    "this core speaks ABI " FRUGAL_TEST_STR(FRUGAL_ABI_VERSION_MAJOR) "." FRUGAL_TEST_STR(FRUGAL_ABI_VERSION_MINOR);

struct Malformed {
  const char* variant;
  int code;
  std::vector<const char*> mentions;  // substrings the message must contain
};

const std::vector<Malformed> kMalformed = {
    {"no_entry", FRUGAL_ERR_PLUGIN_INVALID, {"not a frugal plugin", "frugal_plugin_init_v2"}},
    {"entry_error", FRUGAL_ERR_UNSUPPORTED, {"failed to initialise", "needs a GPU that is not there"}},
    {"entry_throws", FRUGAL_ERR_PLUGIN_INVALID, {"threw an exception", "boom from init"}},
    // A plugin of the previous major: the message names its version and the core's.
    {"major1_desc", FRUGAL_ERR_ABI_MISMATCH, {"built for frugal ABI 1.1", kCoreSpeaks, "major version must match"}},
    {"major1_symbol",
     FRUGAL_ERR_ABI_MISMATCH,
     {"built for frugal ABI 1.x", "frugal_plugin_init_v1", kCoreSpeaks, "frugal_plugin_init_v2"}},
    {"null_slot", FRUGAL_ERR_PLUGIN_INVALID, {"schedule strategy 'broken'", "slot 'lr'"}},
    {"null_vtable", FRUGAL_ERR_PLUGIN_INVALID, {"'broken'", "NULL vtable"}},
    {"null_name", FRUGAL_ERR_PLUGIN_INVALID, {"field 'name' is NULL"}},
    {"dup_strategy", FRUGAL_ERR_PLUGIN_INVALID, {"declares schedule strategy 'same' twice"}},
    {"small_vtable", FRUGAL_ERR_ABI_MISMATCH, {"vtable of 16 bytes", "at least 32"}},
    {"null_desc", FRUGAL_ERR_PLUGIN_INVALID, {"returned no descriptor"}},
    {"tiny_desc", FRUGAL_ERR_ABI_MISMATCH, {"struct_size is 8 bytes"}},
    {"bad_name", FRUGAL_ERR_PLUGIN_INVALID, {"name 'Bad Name!' is invalid"}},
};

// Loads the built-in schedules into `c`: the "host keeps working" probe.
void load_builtins(test::CapturingContext& c) {
  host::check(frugal_context_load_plugin(c.context.get(), test::builtin_path("schedule_lr").c_str()));
}

}  // namespace

TEST_CASE("each malformed plugin is refused with a clear error and the host keeps working") {
  test::CapturingContext c;
  load_builtins(c);
  size_t expected_failures = 0;
  for (const auto& bad : kMalformed) {
    SECTION(bad.variant) {
      const std::string path = plugin_path(bad.variant);
      const auto result = outcome(frugal_context_load_plugin(c.context.get(), path.c_str()));
      INFO(result.message);
      CHECK(result.code == bad.code);
      CHECK(result.message.find(path) != std::string::npos);
      for (const char* mention : bad.mentions) CHECK(result.message.find(mention) != std::string::npos);

      // Recorded, and nothing of the refused plugin was registered.
      REQUIRE(frugal_context_load_failure_count(c.context.get()) == expected_failures + 1);
      frugal_load_failure_info failure{};
      failure.struct_size = sizeof(failure);
      REQUIRE(frugal_context_load_failure(c.context.get(), 0, &failure) == nullptr);
      CHECK(std::string(failure.path) == path);
      CHECK(failure.code == bad.code);
      CHECK(frugal_context_plugin_count(c.context.get()) == 1);
      CHECK_FALSE(test::is_mapped(std::string(bad.variant) + ".so"));

      // The host still works: the good plugin answers.
      CHECK(test::lr_of(c.context.get(), "constant", 5) == Approx(1e-3));
    }
  }
}

TEST_CASE("files that are not shared libraries are refused") {
  test::CapturingContext c;
  load_builtins(c);
  const std::string dir = std::string(FRUGAL_TEST_PLUGIN_DIR) + "/../";
  const std::string text_file = dir + "not_a_library.so";
  const std::string empty_file = dir + "empty.so";
  std::ofstream(text_file) << "this is text, not ELF\n";
  std::ofstream(empty_file).close();
  for (const auto& path : {text_file, empty_file}) {
    const auto result = outcome(frugal_context_load_plugin(c.context.get(), path.c_str()));
    INFO(result.message);
    CHECK(result.code == FRUGAL_ERR_PLUGIN_INVALID);
    CHECK(result.message.find("cannot load") != std::string::npos);
    CHECK(result.message.find("not_a_library.so") + result.message.find("empty.so") != 2 * std::string::npos);
  }
  const auto missing = outcome(frugal_context_load_plugin(c.context.get(), (dir + "missing.so").c_str()));
  CHECK(missing.code == FRUGAL_ERR_NOT_FOUND);
  CHECK(missing.message.find("missing.so") != std::string::npos);
  CHECK(test::lr_of(c.context.get(), "constant", 0) == Approx(1e-3));
}

TEST_CASE("a plugin built for a newer minor with larger structs is accepted") {
  test::CapturingContext c;
  REQUIRE(outcome(frugal_context_load_plugin(c.context.get(), plugin_path("newer_minor").c_str())).code == 0);
  frugal_plugin_info info{};
  info.struct_size = sizeof(info);
  REQUIRE(frugal_context_plugin_info(c.context.get(), 0, &info) == nullptr);
  CHECK(std::string(info.name) == "newer");
  CHECK(info.abi_major == FRUGAL_ABI_VERSION_MAJOR);
  CHECK(info.abi_minor == 7);
  CHECK(c.logged("newer than this core"));
  CHECK(test::lr_of(c.context.get(), "newer_linear", 4) == Approx(2.0));
}

TEST_CASE("a plugin built for an older minor with smaller structs is accepted, missing fields defaulted") {
  // Past its struct_size the descriptor holds 0xAB garbage, including
  // on_unload: reading or calling it would crash this test (or trip ASan).
  test::CapturingContext c;
  REQUIRE(outcome(frugal_context_load_plugin(c.context.get(), plugin_path("older_minor").c_str())).code == 0);
  frugal_plugin_info info{};
  info.struct_size = sizeof(info);
  REQUIRE(frugal_context_plugin_info(c.context.get(), 0, &info) == nullptr);
  CHECK(std::string(info.name) == "older");
  CHECK(std::string(info.description).empty());
  auto options = host::make_options();
  host::check(frugal_options_set_double(options.get(), "slope", 3.0));
  CHECK(test::lr_of(c.context.get(), "older_linear", 5, options.get()) == Approx(15.0));
  c.context.reset();  // unload: must not call the garbage on_unload
  CHECK_FALSE(test::is_mapped("older_minor.so"));
}

TEST_CASE("duplicate plugin names are refused; duplicate strategy names are shadowed, not lost") {
  test::CapturingContext c;
  auto* ctx = c.context.get();
  host::check(frugal_context_load_plugin(ctx, test::builtin_path("schedule_lr").c_str()));
  host::check(frugal_context_load_plugin(ctx, plugin_path("alpha").c_str()));
  CHECK(c.logged("schedule strategy 'cosine' of plugin 'alpha'"));
  CHECK(c.logged("reach it as 'alpha/cosine'"));

  // The first loaded owns the short name; the later one stays reachable qualified.
  frugal_strategy_info info{};
  info.struct_size = sizeof(info);
  REQUIRE(frugal_context_find_strategy(ctx, FRUGAL_KIND_SCHEDULE, "cosine", &info) == nullptr);
  CHECK(std::string(info.plugin_name) == "schedule_lr");
  CHECK(info.shadowed == 0);
  REQUIRE(frugal_context_find_strategy(ctx, FRUGAL_KIND_SCHEDULE, "alpha/cosine", &info) == nullptr);
  CHECK(std::string(info.plugin_name) == "alpha");
  CHECK(info.shadowed == 1);
  CHECK(test::lr_of(ctx, "alpha/cosine", 3) == 42.0);
  frugal_strategy_info listed{};
  listed.struct_size = sizeof(listed);
  REQUIRE(frugal_context_strategy_info(ctx, 1, 1, &listed) == nullptr);
  CHECK(std::string(listed.name) == "cosine");
  CHECK(listed.shadowed == 1);

  // Same plugin name from another file: refused, naming both files.
  const auto copy = outcome(frugal_context_load_plugin(ctx, plugin_path("alpha_copy").c_str()));
  CHECK(copy.code == FRUGAL_ERR_ALREADY_EXISTS);
  CHECK(copy.message.find(plugin_path("alpha_copy")) != std::string::npos);
  CHECK(copy.message.find(plugin_path("alpha")) != std::string::npos);

  // Same file again: a no-op success.
  CHECK(outcome(frugal_context_load_plugin(ctx, plugin_path("alpha").c_str())).code == 0);
  CHECK(frugal_context_plugin_count(ctx) == 2);
}

TEST_CASE("a strategy of a kind this core cannot use is skipped, the rest of the plugin loads") {
  test::CapturingContext c;
  host::check(frugal_context_load_plugin(c.context.get(), plugin_path("alpha").c_str()));
  frugal_plugin_info info{};
  info.struct_size = sizeof(info);
  REQUIRE(frugal_context_plugin_info(c.context.get(), 0, &info) == nullptr);
  CHECK(info.strategy_count == 5);
  CHECK(c.logged("'future_thing' has kind 60"));
  CHECK(test::lr_of(c.context.get(), "linear", 10) == Approx(5.0));
}

TEST_CASE("errors and exceptions from plugin calls reach the host as errors") {
  test::CapturingContext c;
  auto* ctx = c.context.get();
  host::check(frugal_context_load_plugin(ctx, plugin_path("alpha").c_str()));

  frugal_schedule* schedule = nullptr;
  const auto failed = outcome(frugal_schedule_create(ctx, "fails", nullptr, &schedule));
  CHECK(failed.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(failed.message == "schedule 'fails': fails on purpose");
  CHECK(schedule == nullptr);

  auto throwing = host::make_schedule(ctx, "throws", nullptr);
  double lr = -1.0;
  const auto thrown = outcome(frugal_schedule_lr(throwing.get(), 1, &lr));
  CHECK(thrown.code == FRUGAL_ERR_INTERNAL);
  CHECK(thrown.message.find("lr exploded") != std::string::npos);
  CHECK(lr == -1.0);  // out-parameter untouched on failure

  const auto missing = outcome(frugal_schedule_create(ctx, "cosin", nullptr, &schedule));
  CHECK(missing.code == FRUGAL_ERR_NOT_FOUND);
  CHECK(missing.message.find("no schedule strategy named 'cosin'") != std::string::npos);
  CHECK(missing.message.find("available: cosine, fails, hostcheck, linear, throws") != std::string::npos);
  const auto no_plugin = outcome(frugal_schedule_create(ctx, "beta/linear", nullptr, &schedule));
  CHECK(no_plugin.code == FRUGAL_ERR_NOT_FOUND);
  CHECK(no_plugin.message.find("no plugin named 'beta'") != std::string::npos);
}

TEST_CASE("a plugin stays loaded while objects made from it live, and unloads after") {
  host::SchedulePtr schedule;
  {
    auto context = host::make_context();
    host::check(frugal_context_load_plugin(context.get(), plugin_path("alpha").c_str()));
    schedule = host::make_schedule(context.get(), "linear", nullptr);
    CHECK(test::is_mapped("alpha.so"));
  }  // context destroyed here
  CHECK(test::is_mapped("alpha.so"));
  double lr = 0.0;
  REQUIRE(frugal_schedule_lr(schedule.get(), 8, &lr) == nullptr);
  CHECK(lr == Approx(4.0));
  schedule.reset();
  CHECK_FALSE(test::is_mapped("alpha.so"));
}

TEST_CASE("info structs are written only up to the caller's struct_size") {
  auto context = host::make_context();
  host::check(frugal_context_load_plugin(context.get(), plugin_path("alpha").c_str()));
  // An older host whose struct ends after `vendor`: nothing past it may change.
  struct {
    frugal_plugin_info info;
  } buffer;
  std::memset(&buffer, 0x5A, sizeof(buffer));
  buffer.info.struct_size = offsetof(frugal_plugin_info, license);
  REQUIRE(frugal_context_plugin_info(context.get(), 0, &buffer.info) == nullptr);
  CHECK(std::string(buffer.info.name) == "alpha");
  CHECK(std::string(buffer.info.vendor) == "frugal tests");
  const auto* tail = reinterpret_cast<const unsigned char*>(&buffer.info) + offsetof(frugal_plugin_info, license);
  for (size_t i = 0; i < sizeof(frugal_plugin_info) - offsetof(frugal_plugin_info, license); ++i)
    REQUIRE(tail[i] == 0x5A);

  frugal_plugin_info too_small{};
  too_small.struct_size = 4;
  CHECK(outcome(frugal_context_plugin_info(context.get(), 0, &too_small)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  frugal_plugin_info info{};
  info.struct_size = sizeof(info);
  CHECK(outcome(frugal_context_plugin_info(context.get(), 9, &info)).code == FRUGAL_ERR_OUT_OF_RANGE);
}

TEST_CASE("every C entry point survives NULL arguments") {
  CHECK(outcome(frugal_context_create(nullptr)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome(frugal_context_load_plugin(nullptr, "x.so")).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome(frugal_context_discover_plugins(nullptr, 0, nullptr)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome(frugal_context_add_plugin_dir(nullptr, "/tmp")).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome(frugal_context_set_log_callback(nullptr, nullptr, nullptr, 0)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome(frugal_schedule_create(nullptr, "constant", nullptr, nullptr)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome(frugal_schedule_lr(nullptr, 0, nullptr)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome(frugal_context_find_strategy(nullptr, FRUGAL_KIND_SCHEDULE, "x", nullptr)).code ==
        FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(frugal_context_plugin_count(nullptr) == 0);
  CHECK(frugal_context_load_failure_count(nullptr) == 0);
  frugal_context_destroy(nullptr);
  frugal_schedule_destroy(nullptr);
  auto context = host::make_context();
  CHECK(outcome(frugal_context_load_plugin(context.get(), nullptr)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome(frugal_context_add_plugin_dir(context.get(), "")).code == FRUGAL_ERR_INVALID_ARGUMENT);
}

TEST_CASE("one load per process: contexts and hard links share a plugin, its entry runs once") {
  test::CapturingContext first, second;
  host::check(frugal_context_load_plugin(first.context.get(), plugin_path("alpha").c_str()));
  CHECK(first.logged("alpha initialised"));
  host::check(frugal_context_load_plugin(second.context.get(), plugin_path("alpha").c_str()));
  CHECK_FALSE(second.logged("alpha initialised"));  // shared, not initialised again

  // A hard link is the same file: a no-op in a context that has it already.
  const std::string link = std::string(FRUGAL_TEST_PLUGIN_DIR) + "/../alpha_hard_link.so";
  std::remove(link.c_str());
  REQUIRE(::link(plugin_path("alpha").c_str(), link.c_str()) == 0);
  CHECK(outcome(frugal_context_load_plugin(second.context.get(), link.c_str())).code == 0);
  CHECK(frugal_context_plugin_count(second.context.get()) == 1);
  CHECK(frugal_context_load_failure_count(second.context.get()) == 0);
  std::remove(link.c_str());

  auto schedule = host::make_schedule(second.context.get(), "linear", nullptr);
  first.context.reset();
  CHECK(test::is_mapped("alpha.so"));
  CHECK(test::lr_of(second.context.get(), "linear", 2) == Approx(1.0));
  second.context.reset();
  CHECK(test::is_mapped("alpha.so"));  // the schedule still holds it
  schedule.reset();
  CHECK_FALSE(test::is_mapped("alpha.so"));
}

TEST_CASE("the host services table: allocation, options, errors and logging under the plugin's name") {
  test::CapturingContext c;
  auto* ctx = c.context.get();
  host::check(frugal_context_load_plugin(ctx, plugin_path("alpha").c_str()));
  auto options = host::make_options();
  host::check(frugal_options_set_string(options.get(), "mode", "host services ok"));
  auto schedule = host::make_schedule(ctx, "hostcheck", options.get());
  bool found = false;
  for (const auto& line : c.lines)
    if (line.message == "host services ok") {
      found = true;
      CHECK(line.source == "alpha");
      CHECK(line.level == FRUGAL_LOG_WARN);
    }
  CHECK(found);
  CHECK_FALSE(c.logged("ignored: no host"));

  // Options read through the table follow the same rules as on the host side.
  host::check(frugal_options_set_int(options.get(), "extra", 1));
  frugal_schedule* raw = nullptr;
  auto unknown = outcome(frugal_schedule_create(ctx, "hostcheck", options.get(), &raw));
  CHECK(unknown.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(unknown.message == "schedule 'hostcheck': unknown option 'extra' (accepted: mode)");

  // A log threshold set later applies to plugins already loaded.
  host::check(frugal_context_set_log_callback(ctx, nullptr, nullptr, FRUGAL_LOG_TRACE));
  c.lines.clear();
  host::check(frugal_options_set_string(options.get(), "mode", "silenced"));
  auto options_ok = host::make_options();
  host::check(frugal_options_set_string(options_ok.get(), "mode", "silenced"));
  auto again = host::make_schedule(ctx, "hostcheck", options_ok.get());
  CHECK(c.lines.empty());
}

TEST_CASE("contexts load, query and use plugins concurrently (run under TSan in CI)") {
  auto shared = host::make_context();
  std::vector<std::thread> threads;
  std::vector<int> failures(6, 0);
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        // Half the threads share one context, half make their own: both the
        // context lock and the process-wide plugin table are exercised.
        host::ContextPtr own = t % 2 == 0 ? host::make_context() : nullptr;
        frugal_context* ctx = own ? own.get() : shared.get();
        frugal_error* error = frugal_context_load_plugin(ctx, plugin_path("alpha").c_str());
        if (error != nullptr) {
          ++failures[t];
          frugal_error_destroy(error);
          continue;
        }
        frugal_schedule* schedule = nullptr;
        double lr = 0;
        if (frugal_schedule_create(ctx, "linear", nullptr, &schedule) != nullptr ||
            frugal_schedule_lr(schedule, round, &lr) != nullptr || lr != 0.5 * round)
          ++failures[t];
        frugal_schedule_destroy(schedule);
        if (frugal_context_plugin_count(ctx) != 1) ++failures[t];
      }
    });
  for (auto& thread : threads) thread.join();
  CHECK(failures == std::vector<int>(6, 0));
}
