// A plugin declared with sdk/plugin_declaration.hpp (declared_plugin.cpp),
// loaded through host::Context: the core reports exactly the declared
// identity, strategies and flags, and its strategies work end to end,
// errors arriving as host::Exception with the plugin's code.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "frugal/sdk/host.hpp"

using namespace frugal;

namespace {

host::PluginInfo load_declared(host::Context& context) { return context.load(FRUGAL_SDK_DECLARED_PLUGIN); }

int32_t collect(void* user_data, const char* key, uint64_t size) {
  static_cast<std::vector<std::string>*>(user_data)->push_back(std::string(key) + "=" + std::to_string(size));
  return 0;
}

}  // namespace

TEST_CASE("a declared plugin reports exactly its declared identity and strategies") {
  host::Context context;
  const host::PluginInfo info = load_declared(context);
  CHECK(info.name == "sdk_declared");
  CHECK(info.version == "2.5.1-test");
  CHECK(info.vendor == "Example Vendor");
  CHECK(info.license == "Apache-2.0");
  CHECK(info.description == "declared with the sdk helpers");
  CHECK(info.abi_major == FRUGAL_ABI_VERSION_MAJOR);
  CHECK(info.abi_minor == FRUGAL_ABI_VERSION_MINOR);
  REQUIRE(info.strategies.size() == 3);
  const struct {
    int32_t kind;
    uint32_t flags;
    const char* name;
    const char* summary;
  } expected[] = {
      {FRUGAL_KIND_SCHEDULE, FRUGAL_STRATEGY_THREAD_SAFE | FRUGAL_STRATEGY_DETERMINISTIC, "ramp",
       "slope * step (option: slope)"},
      {FRUGAL_KIND_SCHEDULE, 0, "even_only", "a fixed rate on even steps only"},
      {FRUGAL_KIND_STORE, FRUGAL_STRATEGY_THREAD_SAFE, "memory", "objects in process memory"},
  };
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("strategy " << i);
    CHECK(info.strategies[i].kind == expected[i].kind);
    CHECK(info.strategies[i].flags == expected[i].flags);
    CHECK(info.strategies[i].name == expected[i].name);
    CHECK(info.strategies[i].summary == expected[i].summary);
    CHECK(info.strategies[i].plugin_name == "sdk_declared");
    CHECK_FALSE(info.strategies[i].shadowed);
  }
  // Loading the same file again changes nothing and describes the same plugin.
  CHECK(load_declared(context).name == "sdk_declared");
  CHECK(context.plugin_count() == 1);
}

TEST_CASE("a declared schedule computes, and its errors keep their codes") {
  host::Context context;
  load_declared(context);
  host::Options options;
  options.set("slope", 0.25);
  const host::SchedulePtr ramp = host::make_schedule(context.get(), "ramp", options.get());
  double lr = -1.0;
  host::check(frugal_schedule_lr(ramp.get(), 12, &lr));
  CHECK(lr == 3.0);

  try {
    host::make_schedule(context.get(), "ramp", nullptr);
    FAIL("a schedule without its required option was created");
  } catch (const host::Exception& e) {
    CHECK(e.code() == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK_THAT(e.what(), Catch::Contains("option 'slope' is required"));
  }

  const host::SchedulePtr even = host::make_schedule(context.get(), "even_only", nullptr);
  host::check(frugal_schedule_lr(even.get(), 4, &lr));
  CHECK(lr == 0.5);
  try {
    host::check(frugal_schedule_lr(even.get(), 3, &lr));
    FAIL("an odd step was accepted");
  } catch (const host::Exception& e) {
    CHECK(e.code() == FRUGAL_ERR_OUT_OF_RANGE);
    CHECK_THAT(e.what(), Catch::Contains("step 3 is odd"));
  }
}

TEST_CASE("a store declared with the store adapter serves every slot") {
  host::Context context;
  load_declared(context);
  const host::StorePtr store = host::make_store(context.get(), "memory", nullptr);
  const char payload[] = "0123456789";
  host::check(frugal_store_put(store.get(), "run/a", payload, 10));
  host::check(frugal_store_put(store.get(), "run/b", payload, 4));
  host::check(frugal_store_put(store.get(), "other", payload, 1));

  uint64_t size = 0;
  host::check(frugal_store_size(store.get(), "run/a", &size));
  CHECK(size == 10);
  char middle[4] = {};
  host::check(frugal_store_read(store.get(), "run/a", 3, middle, 3));
  CHECK(std::string(middle) == "345");

  std::vector<std::string> listed;
  host::check(frugal_store_list(store.get(), "run/", &collect, &listed));
  CHECK(listed == std::vector<std::string>{"run/a=10", "run/b=4"});

  host::check(frugal_store_remove(store.get(), "run/a"));
  try {
    host::check(frugal_store_size(store.get(), "run/a", &size));
    FAIL("a removed object still has a size");
  } catch (const host::Exception& e) {
    CHECK(e.code() == FRUGAL_ERR_NOT_FOUND);
    CHECK_THAT(e.what(), Catch::Contains("no object 'run/a'"));
  }
  try {
    host::make_store(context.get(), "memory", host::Options().set("root", "/x").get());
    FAIL("an unknown store option was accepted");
  } catch (const host::Exception& e) {
    CHECK(e.code() == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK_THAT(e.what(), Catch::Contains("root"));
  }
}
