// host::Context and the owning handles: loading and discovery return
// values, failures become host::Exception with the frugal code, and every
// handle is released by its wrapper (the ASan build checks for leaks).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "frugal/sdk/host.hpp"

using namespace frugal;

namespace {

const std::string kBuiltin = FRUGAL_BUILTIN_PLUGIN_DIR;

}  // namespace

TEST_CASE("host::Context loads a built-in plugin and describes it as values") {
  host::Context context;
  const host::PluginInfo info = context.load(kBuiltin + "/schedule_lr.so");
  CHECK(info.name == "schedule_lr");
  CHECK(info.vendor == "frugal");
  CHECK(info.path == std::filesystem::canonical(kBuiltin + "/schedule_lr.so").string());
  REQUIRE(info.strategies.size() == 5);
  CHECK(info.strategies[0].name == "constant");
  CHECK(info.strategies[4].name == "wsd");

  const host::StrategyInfo cosine = context.find_strategy(FRUGAL_KIND_SCHEDULE, "cosine");
  CHECK(cosine.plugin_name == "schedule_lr");
  CHECK(cosine.flags == (FRUGAL_STRATEGY_THREAD_SAFE | FRUGAL_STRATEGY_DETERMINISTIC));
  try {
    (void)context.find_strategy(FRUGAL_KIND_SCHEDULE, "nope");
    FAIL("an unknown strategy was found");
  } catch (const host::Exception& e) {
    CHECK(e.code() == FRUGAL_ERR_NOT_FOUND);
    CHECK_THAT(e.what(), Catch::Contains("nope"));
  }
}

TEST_CASE("a file that cannot load throws with its code and is recorded") {
  host::Context context;
  const std::string missing = kBuiltin + "/no_such_plugin.so";
  try {
    context.load(missing);
    FAIL("a missing file loaded");
  } catch (const host::Exception& e) {
    CHECK(e.code() == FRUGAL_ERR_NOT_FOUND);
    CHECK_THAT(e.what(), Catch::Contains("no_such_plugin.so"));
  }
  const auto failures = context.load_failures();
  REQUIRE(failures.size() == 1);
  CHECK(failures[0].code == FRUGAL_ERR_NOT_FOUND);
  CHECK(failures[0].path == missing);
  CHECK(context.plugin_count() == 0);
}

TEST_CASE("discovery of one directory returns the number it loaded") {
  host::Context context;
  context.add_plugin_dir(kBuiltin);
  const std::size_t loaded = context.discover(FRUGAL_DISCOVER_NO_ENV | FRUGAL_DISCOVER_NO_BUILTIN);
  CHECK(loaded == context.plugin_count());
  CHECK(loaded >= 1);
  CHECK(context.discover(FRUGAL_DISCOVER_NO_ENV | FRUGAL_DISCOVER_NO_BUILTIN) == 0);
  bool found = false;
  for (const auto& plugin : context.plugins()) found = found || plugin.name == "schedule_lr";
  CHECK(found);
}

TEST_CASE("a checkpoint engine over a store is created and released by its handles") {
  host::Context context;
  context.load(FRUGAL_SDK_DECLARED_PLUGIN);
  host::StorePtr store = host::make_store(context.get(), "memory", nullptr);
  host::Options options;
  options.set("keep_full", 1);
  host::CkptEnginePtr engine = host::make_ckpt_engine(store.get(), options.get());
  REQUIRE(engine != nullptr);
  // The engine keeps the store open after the caller's handle goes.
  store.reset();
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  try {
    host::check(frugal_ckpt_latest(engine.get(), 0, &info));
    FAIL("an empty store has a latest checkpoint");
  } catch (const host::Exception& e) {
    CHECK(e.code() == FRUGAL_ERR_NOT_FOUND);
  }
  try {
    host::make_ckpt_engine(nullptr, nullptr);
    FAIL("an engine was created without a store");
  } catch (const host::Exception& e) {
    CHECK(e.code() == FRUGAL_ERR_INVALID_ARGUMENT);
  }
}
