// Options as text (frugal_options_set_parsed, the way a command line or a
// config file spells them) handed to every built-in strategy's create, and
// to the checkpoint engine and the loss scaler: each must accept them or
// refuse them with a clear error, never crash, hang or allocate without
// bound. Names come from the options the strategies read (so most inputs
// reach real validation) or are arbitrary; values likewise.
#include <fuzzer/FuzzedDataProvider.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "fuzz_support.hpp"

namespace {

using frugal::fuzz::finding;
using frugal::fuzz::ok;
using frugal::fuzz::plugin_context;

// Every option name a built-in strategy, the engine or the loss scaler
// reads, and the words their string options take.
constexpr std::array kNames = {"algo",
                               "axis",
                               "aux_coef",
                               "block_cols",
                               "block_rows",
                               "capacity_factor",
                               "checkpoint_cost_s",
                               "confirmations",
                               "cooldown_s",
                               "cycle_mult",
                               "cycle_steps",
                               "decay_fraction",
                               "decay_shape",
                               "decay_steps",
                               "drop_policy",
                               "experts",
                               "fast_improvement",
                               "format",
                               "fsync",
                               "full_interval_s",
                               "full_interval_steps",
                               "gamma",
                               "groups",
                               "growth_interval",
                               "heartbeat_interval_s",
                               "history",
                               "k",
                               "keep_full",
                               "keep_heartbeats",
                               "lr",
                               "margin",
                               "max_len",
                               "max_nodes",
                               "max_noise",
                               "max_per_pack",
                               "max_preemptions",
                               "max_price_ratio",
                               "max_rounds",
                               "metric",
                               "min_delta",
                               "min_lr",
                               "min_nodes",
                               "min_spot_s",
                               "min_step",
                               "mode",
                               "mtbf_s",
                               "notice_safety",
                               "overlong",
                               "patience",
                               "plateau_improvement",
                               "preemption_window_s",
                               "prefix",
                               "recipe",
                               "reduction",
                               "renormalize",
                               "reserved_price",
                               "restart_decay",
                               "route_scale",
                               "sample_interval_s",
                               "saturate",
                               "scale_factor",
                               "score",
                               "seed",
                               "shape",
                               "shard_bytes",
                               "threads",
                               "topk_groups",
                               "total_steps",
                               "warmup_steps",
                               "window",
                               "window_s",
                               "young_daly",
                               "z_coef",
                               "z_threshold",
                               "init_scale",
                               "backoff_factor",
                               "min_scale",
                               "max_scale",
                               "growth_factor"};
constexpr std::array kWords = {"0",
                               "1",
                               "-1",
                               "2",
                               "7",
                               "64",
                               "1e308",
                               "-1e308",
                               "1e-308",
                               "nan",
                               "inf",
                               "-inf",
                               "9223372036854775807",
                               "-9223372036854775808",
                               "18446744073709551616",
                               "0.5",
                               "true",
                               "false",
                               "",
                               "e4m3",
                               "e5m2",
                               "int8",
                               "int8_asym",
                               "delayed",
                               "current",
                               "per_channel",
                               "block",
                               "mx",
                               "max",
                               "most_recent",
                               "cosine",
                               "linear",
                               "softmax",
                               "sigmoid",
                               "position",
                               "probability",
                               "split",
                               "truncate",
                               "error",
                               "refined",
                               "ffd",
                               "bfd",
                               "spfhp",
                               "lpfhp",
                               "best",
                               "train",
                               "eval",
                               "absolute",
                               "relative",
                               "../x",
                               "/abs"};

struct Strategy {
  int32_t kind;
  std::string name;
};

const std::vector<Strategy>& strategies() {
  static const std::vector<Strategy> all = [] {
    std::vector<Strategy> out;
    frugal_context* context = plugin_context();
    for (size_t p = 0; p < frugal_context_plugin_count(context); ++p) {
      frugal_plugin_info plugin{};
      plugin.struct_size = sizeof plugin;
      if (!ok(frugal_context_plugin_info(context, p, &plugin))) finding("frugal_context_plugin_info failed");
      for (size_t s = 0; s < plugin.strategy_count; ++s) {
        frugal_strategy_info info{};
        info.struct_size = sizeof info;
        if (!ok(frugal_context_strategy_info(context, p, s, &info))) finding("frugal_context_strategy_info failed");
        out.push_back({info.kind, info.name});
      }
    }
    return out;
  }();
  return all;
}

std::string pick(FuzzedDataProvider& in, const auto& words) {
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) return in.ConsumeRandomLengthString(40);
  return words[in.ConsumeIntegralInRange<size_t>(0, words.size() - 1)];
}

void exercise_schedule(const std::string& name, const frugal_options* options) {
  frugal_schedule* schedule = nullptr;
  if (!ok(frugal_schedule_create(plugin_context(), name.c_str(), options, &schedule))) return;
  for (const int64_t step : {int64_t{0}, int64_t{1}, int64_t{99}, int64_t{1} << 40, INT64_MAX}) {
    double lr = 0;
    if (ok(frugal_schedule_lr(schedule, step, &lr)) && !std::isfinite(lr))
      finding("schedule '" + name + "' returned a non-finite learning rate");
  }
  frugal_schedule_destroy(schedule);
}

void exercise_packer(const std::string& name, const frugal_options* options) {
  frugal_packer* packer = nullptr;
  if (!ok(frugal_packer_create(plugin_context(), name.c_str(), options, &packer))) return;
  const int64_t lengths[] = {1, 3, 7, 8, 64, 65, 200, 2};
  frugal_pack_plan* plan = nullptr;
  if (ok(frugal_packer_pack(packer, lengths, std::size(lengths), &plan))) frugal_pack_plan_destroy(plan);
  frugal_packer_destroy(packer);
}

void exercise_quantizer(const std::string& name, const frugal_options* options) {
  frugal_quantizer* quantizer = nullptr;
  if (!ok(frugal_quantizer_create(plugin_context(), name.c_str(), options, &quantizer))) return;
  for (const int64_t cols : {int64_t{1}, int64_t{128}, int64_t{1} << 40}) {
    int64_t grid[2] = {0, 0};
    if (ok(frugal_quantizer_scale_shape(quantizer, 256, cols, grid)) && (grid[0] < 1 || grid[1] < 1))
      finding("quantizer '" + name + "' gave an empty scale grid");
  }
  frugal_quantizer_destroy(quantizer);
}

void exercise_router(const std::string& name, const frugal_options* options) {
  frugal_router* router = nullptr;
  if (!ok(frugal_router_create(plugin_context(), name.c_str(), options, &router))) return;
  for (const int64_t tokens : {int64_t{1}, int64_t{4096}, int64_t{1} << 50}) {
    frugal_route_shape shape{};
    shape.struct_size = sizeof shape;
    if (ok(frugal_router_plan_shape(router, tokens, &shape)) && shape.max_rows < 0)
      finding("router '" + name + "' gave a negative row count");
  }
  frugal_router_destroy(router);
}

void exercise_policy(const std::string& name, const frugal_options* options) {
  const char* names[] = {name.c_str()};
  const frugal_options* policy_options[] = {options};
  frugal_scheduler_config config{};
  config.struct_size = sizeof config;
  config.policies = names;
  config.policy_options = policy_options;
  config.policy_count = 1;
  frugal_scheduler* scheduler = nullptr;
  if (!ok(frugal_scheduler_create(plugin_context(), &config, &scheduler))) return;
  for (int i = 1; i <= 4; ++i) {
    const frugal_telemetry t = frugal::fuzz::telemetry_record(i);
    frugal_decision decision{};
    decision.struct_size = sizeof decision;
    if (!ok(frugal_scheduler_step(scheduler, &t, &decision))) break;
  }
  frugal_scheduler_destroy(scheduler);
}

// The fuzzed options go either to the fs store or to the checkpoint engine
// on a store opened with defaults. The root is always a scratch directory:
// the fuzzer must not write anywhere else on the machine.
void exercise_store(const std::string& name, frugal_options* options, bool engine_options) {
  frugal::fuzz::ScratchDir scratch;
  frugal_options* defaults = nullptr;
  if (!ok(frugal_options_create(&defaults))) finding("frugal_options_create failed");
  frugal_options* store_options = engine_options ? defaults : options;
  if (!ok(frugal_options_set_string(store_options, "root", (scratch.path() / "store").c_str())))
    finding("cannot set the store root");
  frugal_store* store = nullptr;
  if (ok(frugal_store_create(plugin_context(), name.c_str(), store_options, &store))) {
    frugal_ckpt_engine* engine = nullptr;
    if (ok(frugal_ckpt_engine_create(store, engine_options ? options : nullptr, &engine)))
      frugal_ckpt_engine_destroy(engine);
    frugal_store_destroy(store);
  }
  frugal_options_destroy(defaults);
}

void exercise_loss_scaler(const frugal_options* options) {
  frugal_loss_scaler* scaler = nullptr;
  if (!ok(frugal_loss_scaler_create(options, &scaler))) return;
  for (int i = 0; i < 8; ++i)
    if (!ok(frugal_loss_scaler_update(scaler, i % 3 == 0, nullptr))) break;
  if (!std::isfinite(frugal_loss_scaler_scale(scaler)) || frugal_loss_scaler_scale(scaler) <= 0)
    finding("the loss scale left the positive finite numbers");
  frugal_loss_scaler_destroy(scaler);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const auto& all = strategies();
  const size_t target = in.ConsumeIntegralInRange<size_t>(0, all.size());  // all.size(): the loss scaler
  frugal_options* options = nullptr;
  if (!ok(frugal_options_create(&options))) finding("frugal_options_create failed");
  const int count = in.ConsumeIntegralInRange<int>(0, 10);
  for (int i = 0; i < count; ++i) {
    const std::string name = pick(in, kNames);
    const std::string text = pick(in, kWords);
    if (ok(frugal_options_set_parsed(options, name.c_str(), text.c_str())) &&
        frugal_options_type(options, name.c_str()) == 0)
      finding("an option set from text reads back as absent: '" + name + "'");
  }
  if (target == all.size()) {
    exercise_loss_scaler(options);
  } else {
    const Strategy& s = all[target];
    switch (s.kind) {
      case FRUGAL_KIND_SCHEDULE: exercise_schedule(s.name, options); break;
      case FRUGAL_KIND_PACKER: exercise_packer(s.name, options); break;
      case FRUGAL_KIND_QUANTIZER: exercise_quantizer(s.name, options); break;
      case FRUGAL_KIND_ROUTER: exercise_router(s.name, options); break;
      case FRUGAL_KIND_POLICY: exercise_policy(s.name, options); break;
      case FRUGAL_KIND_STORE: exercise_store(s.name, options, in.ConsumeBool()); break;
      default: break;
    }
  }
  frugal_options_destroy(options);
  return 0;
}
