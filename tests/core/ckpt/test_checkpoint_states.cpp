// Host state in checkpoints (frugal_ckpt_register_state and the
// registrations of the core's objects), through the C API on store_fs:
// each object round-trips with its values checked and then behaves exactly
// like one that was never interrupted; kinds, a state missing from the
// checkpoint, export and import failures, the size limit, the shared
// namespace with tensors, and what inspect shows.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "../scheduler/scheduler_harness.hpp"
#include "ckpt_fixture.hpp"
#include "test_helpers.hpp"

using namespace frugal;
using namespace frugal::test;

namespace {

// A context with every plugin the objects below come from.
host::ContextPtr state_context() {
  auto context = host::make_context();
  for (const char* plugin : {"store_fs", "router_moe", "quant_fp8", "policy_cost", "schedule_lr"})
    host::check(frugal_context_load_plugin(context.get(), builtin_path(plugin).c_str()));
  return context;
}

// A store on a scratch directory and one registered tensor.
struct Rig {
  ScratchDir dir;
  host::ContextPtr context = state_context();
  StorePtr store = open_fs_store(context.get(), dir.path.string());
  HostTensor weights{{4, 8}};  // declared before the engine, which borrows it
  EnginePtr engine = make_engine(store.get());

  Rig() { host::check(frugal_ckpt_register(engine.get(), "model/weights", &weights.view, 0)); }

  // A second engine on the same store (a restarted job), with the tensor registered.
  EnginePtr reopen() {
    auto fresh = make_engine(store.get());
    host::check(frugal_ckpt_register(fresh.get(), "model/weights", &weights.view, 0));
    return fresh;
  }
};

frugal_ckpt_info restore(frugal_ckpt_engine* engine, const char* name = nullptr) {
  std::string metadata(64, '\0');
  size_t size = 0;
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_restore(engine, name, FRUGAL_CKPT_ALL_KINDS, metadata.data(), metadata.size(), &size, &info));
  return info;
}

std::string inspect(frugal_ckpt_engine* engine, const std::string& name) {
  char* json = nullptr;
  host::check(frugal_ckpt_inspect_json(engine, name.c_str(), &json));
  std::string text = json;
  frugal_string_free(json);
  return text;
}

// A host view of a compact tensor.
frugal_tensor view_of(void* data, int32_t dtype, int32_t ndim, const int64_t* shape) {
  frugal_tensor t{};
  t.struct_size = sizeof(t);
  t.data = data;
  t.dtype = dtype;
  t.ndim = ndim;
  t.device = {FRUGAL_DEVICE_CPU, 0};
  t.shape = shape;
  return t;
}

// What a getter with a sized out-struct (`get(object, &out)`) reports.
template <typename T, typename Object, typename Get>
T sized_out(Get get, Object* object) {
  T out{};
  out.struct_size = sizeof(out);
  host::check(get(object, &out));
  return out;
}

// Host bytes behind frugal_ckpt_state_fns, counting the calls and able to
// fail or misreport on demand.
struct FakeState {
  explicit FakeState(std::string initial = "") : bytes(std::move(initial)) {}
  std::string bytes;
  int queries = 0, exports = 0, imports = 0;
  void* seen_user_data = nullptr;
  int32_t fail_export = 0;  // error code of every export, 0 = none
  int32_t fail_import = 0;  // error code of every import, 0 = none
  size_t claim_size = 0;    // when > 0, the size the query reports
  size_t grow_to = 0;       // when > 0, the first export refuses its buffer and asks for this
  frugal_ckpt_state_fns fns() {
    frugal_ckpt_state_fns f{};
    f.struct_size = sizeof(f);
    f.user_data = this;
    f.export_state = [](void* user, void* buffer, size_t capacity, size_t* size) -> frugal_error* {
      auto& s = *static_cast<FakeState*>(user);
      s.seen_user_data = user;
      if (s.fail_export != 0) return frugal_error_create(s.fail_export, "the host's state store is offline");
      if (buffer == nullptr) {
        ++s.queries;
        *size = s.claim_size > 0 ? s.claim_size : s.bytes.size();
        return nullptr;
      }
      ++s.exports;
      if (s.grow_to > 0) {  // grew since the query: as a router that learnt meanwhile
        const size_t grown = std::exchange(s.grow_to, 0);
        *size = grown;
        // Past the limit only the size matters: no need to hold the bytes.
        if (grown > FRUGAL_CKPT_STATE_MAX_SIZE) return frugal_error_create(FRUGAL_ERR_OUT_OF_RANGE, "grown");
        s.bytes.resize(grown, 'g');
      }
      *size = s.bytes.size();
      if (capacity < s.bytes.size()) return frugal_error_create(FRUGAL_ERR_OUT_OF_RANGE, "buffer too small");
      std::memcpy(buffer, s.bytes.data(), s.bytes.size());
      return nullptr;
    };
    f.import_state = [](void* user, const void* data, size_t size) -> frugal_error* {
      auto& s = *static_cast<FakeState*>(user);
      if (data == nullptr) return frugal_error_create(FRUGAL_ERR_INTERNAL, "import_state got NULL");
      if (s.fail_import != 0) return frugal_error_create(s.fail_import, "configured with another vocabulary");
      ++s.imports;
      s.bytes.assign(static_cast<const char*>(data), size);
      return nullptr;
    };
    return f;
  }
};

void register_fake(frugal_ckpt_engine* engine, const char* name, FakeState& state, uint32_t kinds = 0) {
  const frugal_ckpt_state_fns fns = state.fns();
  host::check(frugal_ckpt_register_state(engine, name, &fns, kinds));
}

// --- the core objects --------------------------------------------------------

host::RouterPtr make_deepseek_router(frugal_context* context) {
  auto options = host::make_options();
  for (const auto& [name, value] : std::vector<std::pair<const char*, const char*>>{
           {"experts", "8"}, {"k", "2"}, {"groups", "4"}, {"topk_groups", "2"}, {"gamma", "0.01"}})
    host::check(frugal_options_set_parsed(options.get(), name, value));
  return host::make_router(context, "deepseek_v3", options.get());
}

// One aux-loss-free bias update from expert loads.
void update_router(frugal_router* router, std::vector<int64_t> load) {
  const int64_t shape[1] = {static_cast<int64_t>(load.size())};
  const frugal_tensor view = view_of(load.data(), FRUGAL_DTYPE_INT64, 1, shape);
  host::check(frugal_router_update(router, &view));
}

std::vector<uint8_t> router_state(frugal_router* router) {
  return exported_state([&](void* b, size_t c, size_t* s) { return frugal_router_export_state(router, b, c, s); });
}

host::QuantizerPtr make_delayed_quantizer(frugal_context* context) {
  auto options = host::make_options();
  for (const auto& [name, value] : std::vector<std::pair<const char*, const char*>>{
           {"format", "e4m3"}, {"recipe", "delayed"}, {"history", "4"}, {"reduction", "max"}})
    host::check(frugal_options_set_parsed(options.get(), name, value));
  return host::make_quantizer(context, "quant_fp8", options.get());
}

// Quantizes 64 values whose amax is `amax` per tensor; returns the scale the call used.
float quantize(frugal_quantizer* q, float amax) {
  const auto layout = sized_out<frugal_quant_layout>(frugal_quantizer_layout, q);
  REQUIRE(layout.scale_dtype == FRUGAL_DTYPE_FLOAT32);
  std::vector<float> input(64);
  for (size_t i = 0; i < input.size(); ++i) input[i] = amax * static_cast<float>(i) / 64.0f;
  input[17] = -amax;
  std::vector<uint8_t> codes(64);
  float scale = 0, scale_inv = 0, seen_amax = 0;
  const int64_t shape[2] = {1, 64}, one[2] = {1, 1}, single[1] = {1};
  frugal_tensor in = view_of(input.data(), FRUGAL_DTYPE_FLOAT32, 2, shape);
  frugal_tensor out = view_of(codes.data(), layout.dtype, 2, shape);
  frugal_tensor scale_view = view_of(&scale, FRUGAL_DTYPE_FLOAT32, 2, one);
  frugal_tensor scale_inv_view = view_of(&scale_inv, FRUGAL_DTYPE_FLOAT32, 2, one);
  frugal_tensor amax_view = view_of(&seen_amax, FRUGAL_DTYPE_FLOAT32, 1, single);
  frugal_quant_meta meta{};
  meta.struct_size = sizeof(meta);
  meta.scaling_mode = layout.scaling_mode;
  meta.scale = &scale_view;
  meta.scale_inv = &scale_inv_view;
  meta.amax = &amax_view;
  out.quant = &meta;
  frugal_quantize_args args{};
  args.struct_size = sizeof(args);
  args.input = &in;
  args.output = &out;
  host::check(frugal_quantizer_quantize(q, &args));
  CHECK(seen_amax == amax);
  return scale;
}

std::vector<uint8_t> quantizer_state(frugal_quantizer* q) {
  return exported_state([&](void* b, size_t c, size_t* s) { return frugal_quantizer_export_state(q, b, c, s); });
}

// A scheduler with a cosine schedule and two cost policies.
host::SchedulerPtr make_scheduler(frugal_context* context) {
  auto schedule = host::make_options();
  host::check(frugal_options_set_parsed(schedule.get(), "lr", "0.001"));
  host::check(frugal_options_set_parsed(schedule.get(), "warmup_steps", "20"));
  host::check(frugal_options_set_parsed(schedule.get(), "total_steps", "400"));
  auto cadence = host::make_options();
  host::check(frugal_options_set_parsed(cadence.get(), "full_interval_steps", "35"));
  host::check(frugal_options_set_parsed(cadence.get(), "heartbeat_interval_s", "100"));
  const char* policies[] = {"checkpoint_cadence", "early_stop"};
  const frugal_options* policy_options[] = {cadence.get(), nullptr};
  frugal_scheduler_config config{};
  config.struct_size = sizeof(config);
  config.schedule = "cosine";
  config.schedule_options = schedule.get();
  config.policies = policies;
  config.policy_options = policy_options;
  config.policy_count = 2;
  return host::make_scheduler(context, config);
}

// What a decision says, reason included (it is valid only until the next step).
struct Decided {
  double lr;
  int32_t checkpoint, resource;
  uint32_t target_nodes;
  int32_t stop;
  double next_due_s;
  std::string reason;
  bool operator==(const Decided&) const = default;
};

// Record i of a run with a falling loss, 30 s of job clock apart.
Decided step(frugal_scheduler* scheduler, int64_t i) {
  const frugal_telemetry t = record(30.0 * static_cast<double>(i), 10 * i, 4.0 / static_cast<double>(i + 1));
  frugal_decision d{};
  d.struct_size = sizeof(d);
  host::check(frugal_scheduler_step(scheduler, &t, &d));
  return {d.lr, d.checkpoint, d.resource, d.target_nodes, d.stop, d.next_due_s, d.reason};
}

frugal_cost_ledger ledger_of(frugal_scheduler* scheduler) {
  return sized_out<frugal_cost_ledger>(frugal_scheduler_ledger, scheduler);
}

frugal_loss_scaler_status scaler_state(const frugal_loss_scaler* scaler) {
  return sized_out<frugal_loss_scaler_status>(frugal_loss_scaler_get_status, scaler);
}

host::LossScalerPtr make_scaler() {
  auto options = host::make_options();
  host::check(frugal_options_set_double(options.get(), "init_scale", 1024.0));
  host::check(frugal_options_set_int(options.get(), "growth_interval", 3));
  return host::make_loss_scaler(options.get());
}

void update_scaler(frugal_loss_scaler* scaler, std::initializer_list<int> overflows) {
  for (const int inf : overflows) host::check(frugal_loss_scaler_update(scaler, inf, nullptr));
}

}  // namespace

TEST_CASE("a router's bias round-trips and keeps balancing exactly like an uninterrupted router") {
  Rig rig;
  auto router = make_deepseek_router(rig.context.get());
  auto twin = make_deepseek_router(rig.context.get());  // the same updates, never checkpointed
  const std::vector<int64_t> load = {9, 1, 4, 4, 0, 7, 3, 4};
  for (int i = 0; i < 3; ++i) {
    update_router(router.get(), load);
    update_router(twin.get(), load);
  }
  host::check(frugal_ckpt_register_router(rig.engine.get(), "moe/router", router.get(), 0));
  const auto saved = router_state(router.get());
  REQUIRE(saved != router_state(make_deepseek_router(rig.context.get()).get()));  // the updates moved the bias
  const std::string name = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 3);

  for (int i = 0; i < 5; ++i) update_router(router.get(), {0, 0, 0, 0, 9, 9, 9, 9});
  REQUIRE(router_state(router.get()) != saved);
  const auto info = restore(rig.engine.get());
  CHECK(std::string(info.name) == name);
  CHECK(info.not_restored_count == 0);
  CHECK(router_state(router.get()) == saved);
  // Training on: the restored router and the twin move their bias alike.
  for (int i = 0; i < 4; ++i) {
    update_router(router.get(), {2, 8, 1, 5, 6, 3, 4, 3});
    update_router(twin.get(), {2, 8, 1, 5, 6, 3, 4, 3});
  }
  CHECK(router_state(router.get()) == router_state(twin.get()));
}

TEST_CASE("a quantizer's amax history round-trips and the next scales equal an uninterrupted quantizer's") {
  Rig rig;
  auto quantizer = make_delayed_quantizer(rig.context.get());
  auto twin = make_delayed_quantizer(rig.context.get());
  for (const float amax : {3.0f, 56.0f, 0.75f}) {
    quantize(quantizer.get(), amax);
    quantize(twin.get(), amax);
  }
  host::check(frugal_ckpt_register_quantizer(rig.engine.get(), "fp8/delayed", quantizer.get(), 0));
  const auto saved = quantizer_state(quantizer.get());
  save_and_wait(rig.engine.get(), FRUGAL_CKPT_HEARTBEAT, 3);

  for (const float amax : {448.0f, 448.0f, 448.0f, 448.0f}) quantize(quantizer.get(), amax);  // the whole history
  REQUIRE(quantizer_state(quantizer.get()) != saved);
  restore(rig.engine.get());
  CHECK(quantizer_state(quantizer.get()) == saved);
  // The history holds 56 as its max: the next call scales by 448 / 56 = 8,
  // as the twin does; and so on call after call.
  const float restored_scale = quantize(quantizer.get(), 1.0f);
  CHECK(restored_scale == quantize(twin.get(), 1.0f));
  CHECK(restored_scale == 8.0f);
  for (const float amax : {2.0f, 0.5f, 100.0f}) CHECK(quantize(quantizer.get(), amax) == quantize(twin.get(), amax));
}

TEST_CASE("a restored run scheduler decides exactly as the uninterrupted one, with its ledger") {
  Rig rig;
  auto scheduler = make_scheduler(rig.context.get());
  for (int64_t i = 1; i <= 6; ++i) step(scheduler.get(), i);
  host::check(frugal_ckpt_register_scheduler(rig.engine.get(), "run/scheduler", scheduler.get(), 0));
  save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 60);
  const frugal_cost_ledger at_save = ledger_of(scheduler.get());
  REQUIRE(at_save.dollars > 0);
  // The uninterrupted run goes on to step 16.
  std::vector<Decided> reference;
  for (int64_t i = 7; i <= 16; ++i) reference.push_back(step(scheduler.get(), i));

  // A restarted job: a new engine and a new scheduler, resumed from the checkpoint.
  auto engine = rig.reopen();
  auto resumed = make_scheduler(rig.context.get());
  host::check(frugal_ckpt_register_scheduler(engine.get(), "run/scheduler", resumed.get(), 0));
  restore(engine.get());
  const frugal_cost_ledger restored = ledger_of(resumed.get());
  CHECK(restored.dollars == at_save.dollars);
  CHECK(restored.productive_s == at_save.productive_s);
  std::vector<Decided> replayed;
  for (int64_t i = 7; i <= 16; ++i) replayed.push_back(step(resumed.get(), i));
  CHECK(replayed == reference);
  CHECK(std::any_of(reference.begin(), reference.end(), [](const Decided& d) { return d.checkpoint != 0; }));
  CHECK(ledger_of(resumed.get()).dollars == ledger_of(scheduler.get()).dollars);
  CHECK(ledger_of(resumed.get()).checkpoints_full == ledger_of(scheduler.get()).checkpoints_full);
}

TEST_CASE("a loss scaler's scale and counters round-trip") {
  Rig rig;
  auto scaler = make_scaler();
  update_scaler(scaler.get(), {1, 1, 0, 0, 0, 0});  // 1024 -> 512 -> 256, three clean steps -> 512, one more clean
  const frugal_loss_scaler_status before = scaler_state(scaler.get());
  REQUIRE(before.scale == 512.0);
  REQUIRE(before.clean_steps == 1);
  REQUIRE(before.skipped_steps == 2);
  host::check(frugal_ckpt_register_loss_scaler(rig.engine.get(), "amp/loss_scaler", scaler.get(), 0));
  save_and_wait(rig.engine.get(), FRUGAL_CKPT_HEARTBEAT, 6);

  update_scaler(scaler.get(), {1, 1, 1});
  REQUIRE(frugal_loss_scaler_scale(scaler.get()) == 64.0);
  restore(rig.engine.get());
  const frugal_loss_scaler_status after = scaler_state(scaler.get());
  CHECK(after.scale == 512.0);
  CHECK(after.clean_steps == 1);
  CHECK(after.skipped_steps == 2);
  update_scaler(scaler.get(), {0, 0});  // the restored counter completes the growth interval
  CHECK(frugal_loss_scaler_scale(scaler.get()) == 1024.0);
}

TEST_CASE("a generic state gets its user data and exactly its bytes back, and inspect lists it") {
  Rig rig;
  FakeState state(std::string("cursor=12345;") + std::string(1000, '\x07') + "end");
  register_fake(rig.engine.get(), "data/loader", state);
  rig.weights.fill(1);
  const std::string name = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 7);
  CHECK(state.seen_user_data == &state);
  CHECK(state.queries == 1);  // one size query and one export per save
  CHECK(state.exports == 1);
  CHECK(state.imports == 0);
  const std::string saved = state.bytes;

  const std::string json = inspect(rig.engine.get(), name);
  CHECK(json.find("\"format_version\": 2") != std::string::npos);
  const auto record = nlohmann::json::parse(json).at("states").at(0);
  CHECK(record.at("name") == "data/loader");
  CHECK(record.at("kinds") == nlohmann::json::array({"heartbeat", "full"}));
  CHECK(record.at("size") == saved.size());
  CHECK(record.at("shard") == 1);
  CHECK(record.at("offset") == 0);

  state.bytes = "changed";
  const std::vector<float> weights = rig.weights.data;
  rig.weights.fill(2);
  const auto info = restore(rig.engine.get());
  CHECK(info.not_restored_count == 0);
  CHECK(state.imports == 1);
  CHECK(state.bytes == saved);
  CHECK(rig.weights.data == weights);

  // Once unregistered it is never called, and a checkpoint holding it
  // cannot be restored without it.
  host::check(frugal_ckpt_unregister(rig.engine.get(), "data/loader"));
  save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 8);
  CHECK(state.exports == 1);
  expect_error(frugal_ckpt_restore(rig.engine.get(), name.c_str(), 0, nullptr, 0, nullptr, nullptr),
               FRUGAL_ERR_FAILED_PRECONDITION, {"holds state 'data/loader', which is not registered"});
  // A manifest without states stays format 1, which every reader reads.
  CHECK(inspect(rig.engine.get(), restore(rig.engine.get()).name).find("\"format_version\": 1") != std::string::npos);
}

TEST_CASE("a heartbeat restores a full-only state from the full checkpoint its full-only tensors come from") {
  Rig rig;
  FakeState every, full_only;
  HostTensor moments({16});
  host::check(frugal_ckpt_register(rig.engine.get(), "optim/moments", &moments.view, FRUGAL_CKPT_FULL));
  register_fake(rig.engine.get(), "step/counters", every);
  register_fake(rig.engine.get(), "optim/schedule", full_only, FRUGAL_CKPT_FULL);

  SECTION("from the full checkpoint written before the heartbeat") {
    every.bytes = full_only.bytes = "step 10";
    const std::string full = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 10);
    every.bytes = full_only.bytes = "step 12";
    const std::string heartbeat = save_and_wait(rig.engine.get(), FRUGAL_CKPT_HEARTBEAT, 12);
    CHECK(full_only.exports == 1);  // a heartbeat leaves it out
    CHECK(inspect(rig.engine.get(), heartbeat).find("optim/schedule") == std::string::npos);
    every.bytes = full_only.bytes = "lost";
    const auto info = restore(rig.engine.get());
    CHECK(std::string(info.name) == heartbeat);
    CHECK(std::string(info.full_source) == full);
    CHECK(info.not_restored_count == 0);
    CHECK(every.bytes == "step 12");
    CHECK(full_only.bytes == "step 10");
  }
  SECTION("left untouched and reported when no full checkpoint precedes the heartbeat") {
    every.bytes = full_only.bytes = "step 12";
    save_and_wait(rig.engine.get(), FRUGAL_CKPT_HEARTBEAT, 12);
    full_only.bytes = "fresh";
    const auto info = restore(rig.engine.get());
    CHECK(full_only.imports == 0);
    CHECK(full_only.bytes == "fresh");
    CHECK(std::string(info.full_source).empty());
    CHECK(not_restored(rig.engine.get(), info) == std::vector<std::string>{"optim/moments", "optim/schedule"});
  }
}

TEST_CASE("a registered state the checkpoint does not hold is left untouched and reported in registration order") {
  Rig rig;
  save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 1);
  FakeState late("registered after the save");
  register_fake(rig.engine.get(), "late/state", late);
  HostTensor tensor({3});
  host::check(frugal_ckpt_register(rig.engine.get(), "late/tensor", &tensor.view, 0));
  const auto info = restore(rig.engine.get());
  CHECK(info.not_restored_count == 2);
  CHECK(not_restored(rig.engine.get(), info) == std::vector<std::string>{"late/state", "late/tensor"});
  CHECK(late.imports == 0);
  CHECK(late.bytes == "registered after the save");
}

// frugal_ckpt_list's callback: appends each checkpoint's info.
int32_t collect_info(void* user_data, const frugal_ckpt_info* info) {
  static_cast<std::vector<frugal_ckpt_info>*>(user_data)->push_back(*info);
  return 0;
}

TEST_CASE("frugal_ckpt_info counts the states beside the tensors in list, verify, latest and restore") {
  Rig rig;
  const std::string bare = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 1);  // before any state
  FakeState every("every kind"), full_only("full only");
  register_fake(rig.engine.get(), "step/counters", every);
  register_fake(rig.engine.get(), "optim/schedule", full_only, FRUGAL_CKPT_FULL);
  const std::string full = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 2);
  const std::string heartbeat = save_and_wait(rig.engine.get(), FRUGAL_CKPT_HEARTBEAT, 3);

  // Listing, newest first: the heartbeat leaves the full-only state out.
  std::vector<frugal_ckpt_info> listed;
  host::check(frugal_ckpt_list(rig.engine.get(), 0, collect_info, &listed));
  REQUIRE(listed.size() == 3);
  CHECK(std::string(listed[0].name) == heartbeat);
  CHECK(listed[0].state_count == 1);
  CHECK(std::string(listed[1].name) == full);
  CHECK(listed[1].state_count == 2);
  CHECK(std::string(listed[2].name) == bare);
  CHECK(listed[2].state_count == 0);
  for (const auto& info : listed) CHECK(info.tensor_count == 1);  // model/weights, never a state

  frugal_ckpt_info verified{};
  verified.struct_size = sizeof(verified);
  host::check(frugal_ckpt_verify(rig.engine.get(), full.c_str(), &verified));
  CHECK(verified.state_count == 2);
  frugal_ckpt_info latest{};
  latest.struct_size = sizeof(latest);
  host::check(frugal_ckpt_latest(rig.engine.get(), FRUGAL_CKPT_FULL, &latest));
  CHECK(std::string(latest.name) == full);
  CHECK(latest.state_count == 2);

  // Restore reports the restored checkpoint's own count (the heartbeat's),
  // though the full-only state came from the full checkpoint.
  const auto restored = restore(rig.engine.get());
  CHECK(std::string(restored.name) == heartbeat);
  CHECK(restored.state_count == 1);
  CHECK(restored.tensor_count == 1);
  CHECK(restored.not_restored_count == 0);
  CHECK(full_only.imports == 1);
}

TEST_CASE("a failing export fails the save naming the state, and the previous checkpoint stays the one restored") {
  Rig rig;
  FakeState state("good");
  register_fake(rig.engine.get(), "host/flaky", state);
  rig.weights.fill(1);
  const std::string good = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 1);
  const std::vector<float> good_weights = rig.weights.data;

  state.fail_export = FRUGAL_ERR_IO;
  rig.weights.fill(2);
  const frugal_ckpt_save_args args = save_args(FRUGAL_CKPT_FULL, 2, "", FRUGAL_CKPT_SAVE_WAIT);
  SECTION("a save") {
    expect_error(frugal_ckpt_save(rig.engine.get(), &args, nullptr), FRUGAL_ERR_IO,
                 {"exporting checkpoint state 'host/flaky'", "the host's state store is offline"});
  }
  SECTION("an emergency save") {
    frugal_ckpt_emergency_result result{};
    result.struct_size = sizeof(result);
    expect_error(frugal_ckpt_emergency_save(rig.engine.get(), &args, 10.0, &result), FRUGAL_ERR_IO,
                 {"exporting checkpoint state 'host/flaky'"});
  }
  host::check(frugal_ckpt_wait(rig.engine.get(), nullptr));  // nothing was queued, so nothing failed later
  const auto listed = list_all(rig.engine.get(), true);
  REQUIRE(listed.size() == 1);  // nothing of the failed save is visible
  CHECK(std::string(listed[0].name) == good);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(rig.dir.path))
    entries += entry.path().filename().string().rfind("full-", 0) == 0;
  CHECK(entries == 1);

  state.bytes = "after";
  CHECK(std::string(restore(rig.engine.get()).name) == good);
  CHECK(state.bytes == "good");
  CHECK(rig.weights.data == good_weights);
}

TEST_CASE("a failing import ends the restore naming the state, after the tensors and the states before it") {
  Rig rig;
  FakeState first("first saved"), broken("broken saved"), last("last saved");
  register_fake(rig.engine.get(), "a/first", first);
  register_fake(rig.engine.get(), "b/broken", broken);
  register_fake(rig.engine.get(), "c/last", last);
  rig.weights.fill(5);
  const std::vector<float> saved_weights = rig.weights.data;
  const std::string name = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 4, "meta");

  rig.weights.fill(6);
  first.bytes = broken.bytes = last.bytes = "current";
  broken.fail_import = FRUGAL_ERR_INVALID_ARGUMENT;
  std::string metadata(16, '\0');
  size_t metadata_size = 77;
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  info.step = 99;
  expect_error(
      frugal_ckpt_restore(rig.engine.get(), nullptr, 0, metadata.data(), metadata.size(), &metadata_size, &info),
      FRUGAL_ERR_INVALID_ARGUMENT,
      {("restoring checkpoint " + name).c_str(), "importing state 'b/broken'", "another vocabulary"});
  // What frugal_ckpt_restore documents: tensors written, earlier states
  // imported, the failing one and later ones as they were, no out-param.
  CHECK(rig.weights.data == saved_weights);
  CHECK(first.bytes == "first saved");
  CHECK(broken.bytes == "current");
  CHECK(last.bytes == "current");
  CHECK(last.imports == 0);
  CHECK(metadata_size == 77);
  CHECK(info.step == 99);
  CHECK(metadata == std::string(16, '\0'));

  // Fixed, the same restore writes everything.
  broken.fail_import = 0;
  const auto again = restore(rig.engine.get());
  CHECK(std::string(again.name) == name);
  CHECK(broken.bytes == "broken saved");
  CHECK(last.bytes == "last saved");
}

TEST_CASE("a state over FRUGAL_CKPT_STATE_MAX_SIZE is refused, one that grows is exported again") {
  Rig rig;
  FakeState state("abcd");
  register_fake(rig.engine.get(), "big/state", state);
  const frugal_ckpt_save_args args = save_args(FRUGAL_CKPT_FULL, 1, "", FRUGAL_CKPT_SAVE_WAIT);

  SECTION("too big at the size query: refused before any buffer is made") {
    state.claim_size = static_cast<size_t>(FRUGAL_CKPT_STATE_MAX_SIZE) + 1;
    expect_error(frugal_ckpt_save(rig.engine.get(), &args, nullptr), FRUGAL_ERR_OUT_OF_RANGE,
                 {"checkpoint state 'big/state' exports 268435457 bytes", "FRUGAL_CKPT_STATE_MAX_SIZE"});
    CHECK(state.exports == 0);
    CHECK(list_all(rig.engine.get(), false).empty());
  }
  SECTION("grown past the limit between the query and the export") {
    state.grow_to = static_cast<size_t>(FRUGAL_CKPT_STATE_MAX_SIZE) + 8;
    expect_error(frugal_ckpt_save(rig.engine.get(), &args, nullptr), FRUGAL_ERR_OUT_OF_RANGE,
                 {"'big/state' exports 268435464 bytes"});
    CHECK(list_all(rig.engine.get(), false).empty());
  }
  SECTION("grown within the limit: exported again at its new size") {
    state.grow_to = 4096;
    const std::string name = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 1);
    CHECK(state.exports == 2);
    const std::string grown = state.bytes;
    state.bytes.clear();
    restore(rig.engine.get(), name.c_str());
    CHECK(state.bytes == grown);
    CHECK(state.bytes.size() == 4096);
  }
}

TEST_CASE("states and tensors share one namespace, and registrations are checked") {
  Rig rig;
  FakeState state;
  const frugal_ckpt_state_fns fns = state.fns();
  expect_error(frugal_ckpt_register_state(rig.engine.get(), "model/weights", &fns, 0), FRUGAL_ERR_ALREADY_EXISTS,
               {"checkpoint tensor 'model/weights' is already registered"});
  host::check(frugal_ckpt_register_state(rig.engine.get(), "host/state", &fns, 0));
  HostTensor tensor({2});
  expect_error(frugal_ckpt_register(rig.engine.get(), "host/state", &tensor.view, 0), FRUGAL_ERR_ALREADY_EXISTS,
               {"'host/state' is already registered as a checkpoint state"});
  expect_error(frugal_ckpt_register_state(rig.engine.get(), "host/state", &fns, 0), FRUGAL_ERR_ALREADY_EXISTS, {});
  host::check(frugal_ckpt_unregister(rig.engine.get(), "host/state"));
  host::check(frugal_ckpt_register(rig.engine.get(), "host/state", &tensor.view, 0));  // the name is free again
  expect_error(frugal_ckpt_unregister(rig.engine.get(), "never/registered"), FRUGAL_ERR_NOT_FOUND,
               {"no checkpoint tensor or state named 'never/registered'"});

  frugal_ckpt_state_fns small = fns;
  small.struct_size = offsetof(frugal_ckpt_state_fns, import_state);
  expect_error(frugal_ckpt_register_state(rig.engine.get(), "s1", &small, 0), FRUGAL_ERR_ABI_MISMATCH,
               {"fns->struct_size"});
  frugal_ckpt_state_fns no_import = fns;
  no_import.import_state = nullptr;
  expect_error(frugal_ckpt_register_state(rig.engine.get(), "s2", &no_import, 0), FRUGAL_ERR_INVALID_ARGUMENT,
               {"fns->import_state is NULL"});
  expect_error(frugal_ckpt_register_state(rig.engine.get(), "s3", nullptr, 0), FRUGAL_ERR_INVALID_ARGUMENT, {"fns"});
  expect_error(frugal_ckpt_register_state(rig.engine.get(), "bad name!", &fns, 0), FRUGAL_ERR_INVALID_ARGUMENT,
               {"checkpoint state name 'bad name!'"});
  expect_error(frugal_ckpt_register_state(rig.engine.get(), "s4", &fns, 8), FRUGAL_ERR_INVALID_ARGUMENT,
               {"kinds mask 0x8"});
  expect_error(frugal_ckpt_register_router(rig.engine.get(), "r", nullptr, 0), FRUGAL_ERR_INVALID_ARGUMENT,
               {"frugal_ckpt_register_router", "router"});
  expect_error(frugal_ckpt_register_loss_scaler(nullptr, "l", make_scaler().get(), 0), FRUGAL_ERR_INVALID_ARGUMENT,
               {"engine"});
}
