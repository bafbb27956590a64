// The `nccl` comm (plugins/comm_nccl) through the C API, on any machine:
// discovery finds and loads it, it declares its options, it refuses bad
// options with the option's name before any CUDA call (these tests run
// where there is no GPU, so a CUDA call first would answer "no CUDA
// device" instead), and create on a machine without a device fails
// clearly and at once. On a machine with a GPU the create cases check the
// other side instead (a comm is made; a made-up id fails within its
// deadline); tests/device/comm_nccl_check.cpp runs the collectives there.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <map>
#include <string>

#include "frugal/sdk/host.hpp"
#include "test_helpers.hpp"

namespace host = frugal::host;
using frugal::test::builtin_path;
using frugal::test::expect_error;
using frugal::test::outcome;

namespace {

// 256 hex digits: well-formed, but no NCCL root behind it.
std::string made_up_id() {
  std::string id;
  for (int i = 0; i < 16; ++i) id += "0123456789abcdef";
  return id;
}

bool has_gpu() { return frugal_cuda_device_count() > 0; }

struct NcclRig {
  host::ContextPtr context = host::make_context();
  NcclRig() { host::check(frugal_context_load_plugin(context.get(), builtin_path("comm_nccl").c_str())); }

  // frugal_comm_create(ctx, "nccl", options), the comm destroyed if made.
  frugal_error* create(const host::Options& options) const {
    frugal_comm* comm = nullptr;
    frugal_error* e = frugal_comm_create(context.get(), "nccl", options.get(), &comm);
    if (comm != nullptr) frugal_comm_destroy(comm);
    return e;
  }
};

host::Options by_id(int64_t rank, int64_t size) {
  host::Options o;
  o.set("unique_id", made_up_id()).set("rank", rank).set("size", size);
  return o;
}

// The message of the "no CUDA device" refusal, every way of joining.
void expect_no_device(frugal_error* e) {
  expect_error(e, FRUGAL_ERR_FAILED_PRECONDITION, {"comm 'nccl'", "no CUDA device is present", "cudaGetDeviceCount"});
}

}  // namespace

TEST_CASE("discovery loads comm_nccl from the built-in directory and 'nccl' is its comm strategy") {
  setenv("FRUGAL_SYSTEM_PLUGIN_DIRS", "", 1);  // only this build's plugins
  auto context = host::make_context();
  host::check(frugal_context_discover_plugins(context.get(), FRUGAL_DISCOVER_NO_ENV, nullptr));
  for (size_t i = 0; i < frugal_context_load_failure_count(context.get()); ++i) {
    frugal_load_failure_info failure{};
    failure.struct_size = sizeof(failure);
    host::check(frugal_context_load_failure(context.get(), i, &failure));
    INFO(failure.path << ": " << failure.message);
    CHECK(std::string(failure.path).find("comm_nccl") == std::string::npos);
  }
  frugal_strategy_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_context_find_strategy(context.get(), FRUGAL_KIND_COMM, "nccl", &info));
  CHECK(std::string(info.plugin_name) == "comm_nccl");
  CHECK(std::string(info.summary).find("NCCL") != std::string::npos);
  CHECK(info.shadowed == 0);
  host::check(frugal_context_find_strategy(context.get(), FRUGAL_KIND_COMM, "comm_nccl/nccl", &info));
}

TEST_CASE("nccl declares its options: three ways to join, device and the join deadline") {
  NcclRig rig;
  frugal_context* ctx = rig.context.get();
  REQUIRE(frugal_context_plugin_count(ctx) == 1);
  frugal_plugin_info plugin{};
  plugin.struct_size = sizeof(plugin);
  host::check(frugal_context_plugin_info(ctx, 0, &plugin));
  CHECK(std::string(plugin.name) == "comm_nccl");
  REQUIRE(plugin.strategy_count == 1);
  frugal_strategy_info strategy{};
  strategy.struct_size = sizeof(strategy);
  host::check(frugal_context_strategy_info(ctx, 0, 0, &strategy));
  CHECK(strategy.kind == FRUGAL_KIND_COMM);
  CHECK(std::string(strategy.name) == "nccl");
  std::map<std::string, frugal_option_info> options;
  for (size_t i = 0; i < strategy.option_count; ++i) {
    frugal_option_info o{};
    o.struct_size = sizeof(o);
    host::check(frugal_context_strategy_option(ctx, 0, 0, i, &o));
    options[o.name] = o;
    CHECK((o.flags & FRUGAL_OPTION_DECL_REQUIRED) == 0);  // the ways to join are alternatives
  }
  const std::map<std::string, int32_t> expected = {
      {"bootstrap", FRUGAL_OPTION_COMM},     {"unique_id", FRUGAL_OPTION_STRING}, {"rank", FRUGAL_OPTION_INT},
      {"size", FRUGAL_OPTION_INT},           {"nccl_comm", FRUGAL_OPTION_INT},    {"device", FRUGAL_OPTION_INT},
      {"join_timeout_ms", FRUGAL_OPTION_INT}};
  REQUIRE(options.size() == expected.size());
  for (const auto& [name, type] : expected) {
    INFO(name);
    REQUIRE(options.count(name) == 1);
    CHECK(options[name].type == type);
  }
  CHECK(std::string(options["join_timeout_ms"].default_value) == "300000");
  CHECK(options["device"].min == 0.0);
  CHECK(options["size"].min == 1.0);
  CHECK(options["nccl_comm"].min == 1.0);
  CHECK(std::string(options["unique_id"].doc).find("256 hex digits") != std::string::npos);
}

TEST_CASE("bad options are refused with the option's name, before any CUDA call") {
  NcclRig rig;
  SECTION("an unknown option") {
    host::Options o = by_id(0, 1);
    o.set("devcie", int64_t{0});
    expect_error(rig.create(o), FRUGAL_ERR_INVALID_ARGUMENT, {"unknown option 'devcie'", "device"});
  }
  SECTION("no way to join, or two") {
    host::Options none;
    none.set("device", int64_t{0});
    expect_error(rig.create(none), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"one of options 'bootstrap'", "'unique_id'", "'nccl_comm'", "is required"});
    expect_error(rig.create(host::Options{}), FRUGAL_ERR_INVALID_ARGUMENT, {"one of options 'bootstrap'"});
    host::Options two = by_id(0, 1);
    two.set("nccl_comm", int64_t{4096});
    expect_error(rig.create(two), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"options 'unique_id' and 'nccl_comm' exclude each other"});
  }
  SECTION("unique_id of the wrong length, or not hex") {
    host::Options short_id = by_id(0, 1);
    short_id.set("unique_id", "0123456789");
    expect_error(rig.create(short_id), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"option 'unique_id' must be 256 hex digits", "got 10 characters"});
    std::string text = made_up_id();
    text[100] = 'z';
    host::Options not_hex = by_id(0, 1);
    not_hex.set("unique_id", text);
    expect_error(rig.create(not_hex), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"option 'unique_id' has 'z' at character 100, not a hex digit"});
    host::Options as_int = by_id(0, 1);
    as_int.set("unique_id", int64_t{7});
    expect_error(rig.create(as_int), FRUGAL_ERR_INVALID_ARGUMENT, {"option 'unique_id'", "expected string"});
  }
  SECTION("rank and size: both needed with unique_id, rank below size") {
    expect_error(rig.create(by_id(4, 4)), FRUGAL_ERR_OUT_OF_RANGE,
                 {"option 'rank' must be below option 'size' (4: ranks 0 to 3); got 4"});
    expect_error(rig.create(by_id(9, 2)), FRUGAL_ERR_OUT_OF_RANGE, {"option 'rank'", "got 9"});
    expect_error(rig.create(by_id(-1, 2)), FRUGAL_ERR_OUT_OF_RANGE, {"option 'rank'"});
    expect_error(rig.create(by_id(0, 0)), FRUGAL_ERR_OUT_OF_RANGE, {"option 'size'"});
    host::Options no_size;
    no_size.set("unique_id", made_up_id()).set("rank", int64_t{0});
    expect_error(rig.create(no_size), FRUGAL_ERR_INVALID_ARGUMENT, {"option 'size' is required with 'unique_id'"});
    host::Options no_rank;
    no_rank.set("unique_id", made_up_id()).set("size", int64_t{2});
    expect_error(rig.create(no_rank), FRUGAL_ERR_INVALID_ARGUMENT, {"option 'rank' is required with 'unique_id'"});
  }
  SECTION("a negative device, a zero address, a deadline of 0") {
    host::Options device = by_id(0, 1);
    device.set("device", int64_t{-1});
    expect_error(rig.create(device), FRUGAL_ERR_OUT_OF_RANGE, {"option 'device' = -1 is out of range"});
    host::Options null_comm;
    null_comm.set("nccl_comm", int64_t{0});
    expect_error(rig.create(null_comm), FRUGAL_ERR_OUT_OF_RANGE, {"option 'nccl_comm'"});
    host::Options deadline = by_id(0, 1);
    deadline.set("join_timeout_ms", int64_t{0});
    expect_error(rig.create(deadline), FRUGAL_ERR_OUT_OF_RANGE, {"option 'join_timeout_ms'"});
  }
  SECTION("rank and size only with unique_id") {
    host::check(frugal_context_load_plugin(rig.context.get(), builtin_path("comm_local").c_str()));
    auto local = host::make_comm(rig.context.get(), "local", nullptr);
    host::Options o;
    o.set("bootstrap", local.get()).set("rank", int64_t{0});
    expect_error(rig.create(o), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"option 'rank' applies only with 'unique_id' (with 'bootstrap'"});
    host::Options wrapped;
    wrapped.set("nccl_comm", int64_t{4096}).set("size", int64_t{2});
    expect_error(rig.create(wrapped), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"option 'size' applies only with 'unique_id' (with 'nccl_comm'"});
    host::Options not_a_comm;
    not_a_comm.set("bootstrap", "mpi");
    expect_error(rig.create(not_a_comm), FRUGAL_ERR_INVALID_ARGUMENT, {"option 'bootstrap'", "expected comm"});
  }
}

TEST_CASE("create without a CUDA device fails at once, naming it, whichever way it joins") {
  NcclRig rig;
  if (has_gpu()) {
    SUCCEED("this machine has a GPU: the next test case checks create there");
    return;
  }
  const auto started = std::chrono::steady_clock::now();
  expect_no_device(rig.create(by_id(0, 1)));
  expect_no_device(rig.create(by_id(3, 8)));
  host::Options device = by_id(0, 1);
  device.set("device", int64_t{5});
  expect_no_device(rig.create(device));
  // Wrapping: refused before the address is ever read (4096 is no ncclComm_t).
  host::Options wrapped;
  wrapped.set("nccl_comm", int64_t{4096});
  expect_no_device(rig.create(wrapped));
  // Through a bootstrap comm: rank 0 cannot make the id, the group (of one)
  // learns it through the comm, and the error is rank 0's own.
  host::check(frugal_context_load_plugin(rig.context.get(), builtin_path("comm_local").c_str()));
  auto local = host::make_comm(rig.context.get(), "local", nullptr);
  host::Options boot;
  boot.set("bootstrap", local.get());
  const auto o = outcome(rig.create(boot));
  INFO(o.message);
  CHECK(o.code == FRUGAL_ERR_FAILED_PRECONDITION);
  CHECK(o.message.find("create on rank 0 of 1: no CUDA device is present") != std::string::npos);
  // The bootstrap comm is still usable: nothing was left half-done on it.
  CHECK(frugal_comm_barrier(local.get()) == nullptr);
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  CHECK(seconds < 30.0);
}

TEST_CASE("with a GPU: a comm through a bootstrap comm is rank 0 of 1 on CUDA, a made-up id fails in time") {
  if (!has_gpu()) {
    SUCCEED("no GPU here: the previous test case checks create without one");
    return;
  }
  NcclRig rig;
  host::check(frugal_context_load_plugin(rig.context.get(), builtin_path("comm_local").c_str()));
  auto local = host::make_comm(rig.context.get(), "local", nullptr);
  host::Options boot;
  boot.set("bootstrap", local.get());
  auto comm = host::make_comm(rig.context.get(), "nccl", boot.get());
  CHECK(frugal_comm_rank(comm.get()) == 0);
  CHECK(frugal_comm_size(comm.get()) == 1);
  CHECK(frugal_comm_device_type(comm.get()) == FRUGAL_DEVICE_CUDA);
  CHECK(frugal_comm_barrier(comm.get()) == nullptr);
  comm.reset();
  // No NCCL root behind the id: an error within the deadline, never a hang.
  host::Options o = by_id(0, 1);
  o.set("join_timeout_ms", int64_t{3000});
  const auto started = std::chrono::steady_clock::now();
  const auto result = outcome(rig.create(o));
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  INFO(result.message);
  CHECK(result.code != 0);
  CHECK(result.message.find("create on rank 0 of 1") != std::string::npos);
  CHECK(seconds < 60.0);
}
