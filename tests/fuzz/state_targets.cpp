#include "state_targets.hpp"

#include <cmath>
#include <cstring>
#include <functional>

#include "fuzz_support.hpp"

namespace frugal::fuzz {
namespace {

frugal_options* options_of(const std::vector<std::pair<const char*, const char*>>& entries) {
  frugal_options* options = nullptr;
  if (!ok(frugal_options_create(&options))) finding("frugal_options_create failed");
  for (const auto& [name, text] : entries)
    must(frugal_options_set_parsed(options, name, text), std::string("option ") + name);
  return options;
}

// Exports through a size query then a copy, as the C API asks.
template <typename Export>
std::vector<uint8_t> exported(Export&& call) {
  size_t size = 0;
  if (!ok(call(nullptr, 0, &size))) return {};
  std::vector<uint8_t> blob(size);
  if (!ok(call(blob.data(), blob.size(), &size))) return {};
  blob.resize(size);
  return blob;
}

class SchedulerTarget final : public StateTarget {
 public:
  explicit SchedulerTarget(std::vector<std::string> policies) : names_(std::move(policies)) {
    std::vector<const char*> names;
    std::vector<frugal_options*> owned;
    for (const auto& n : names_) {
      names.push_back(n.c_str());
      // The options each policy requires; the others run on defaults.
      if (n == "checkpoint_cadence")
        owned.push_back(options_of({{"full_interval_steps", "3"}}));
      else if (n == "plateau_autoscaler")
        owned.push_back(options_of({{"min_nodes", "1"}, {"max_nodes", "8"}}));
      else
        owned.push_back(nullptr);
    }
    std::vector<const frugal_options*> per_policy(owned.begin(), owned.end());
    frugal_options* schedule = options_of({{"lr", "0.001"}, {"warmup_steps", "2"}, {"total_steps", "100"}});
    frugal_scheduler_config config{};
    config.struct_size = sizeof config;
    config.schedule = "cosine";
    config.schedule_options = schedule;
    config.policies = names.data();
    config.policy_options = per_policy.data();
    config.policy_count = names.size();
    must(frugal_scheduler_create(plugin_context(), &config, &scheduler_), "the fuzz scheduler configuration");
    frugal_options_destroy(schedule);
    for (frugal_options* o : owned) frugal_options_destroy(o);
  }
  ~SchedulerTarget() override { frugal_scheduler_destroy(scheduler_); }
  std::vector<uint8_t> export_state() override {
    return exported([&](void* b, size_t c, size_t* s) { return frugal_scheduler_export_state(scheduler_, b, c, s); });
  }
  bool import_state(const std::vector<uint8_t>& blob) override {
    return ok(frugal_scheduler_import_state(scheduler_, blob.data(), blob.size()));
  }
  void exercise() override {
    for (int i = 0; i < 6; ++i) {
      const frugal_telemetry t = telemetry_record(++step_);
      frugal_decision decision{};
      decision.struct_size = sizeof decision;
      if (!ok(frugal_scheduler_step(scheduler_, &t, &decision))) return;
    }
  }

 private:
  std::vector<std::string> names_;
  frugal_scheduler* scheduler_ = nullptr;
  int64_t step_ = 0;
};

class QuantizerTarget final : public StateTarget {
 public:
  explicit QuantizerTarget(const std::vector<std::pair<const char*, const char*>>& entries) {
    frugal_options* options = options_of(entries);
    must(frugal_quantizer_create(plugin_context(), "quant_fp8", options, &quantizer_),
         "the fuzz quantizer configuration");
    frugal_options_destroy(options);
    layout_.struct_size = sizeof layout_;
    if (!ok(frugal_quantizer_layout(quantizer_, &layout_))) finding("frugal_quantizer_layout failed");
  }
  ~QuantizerTarget() override { frugal_quantizer_destroy(quantizer_); }
  std::vector<uint8_t> export_state() override {
    return exported([&](void* b, size_t c, size_t* s) { return frugal_quantizer_export_state(quantizer_, b, c, s); });
  }
  bool import_state(const std::vector<uint8_t>& blob) override {
    return ok(frugal_quantizer_import_state(quantizer_, blob.data(), blob.size()));
  }
  // Quantizes a [4, 128] tensor (with fake-quant) twice; the delayed recipe
  // derives its scale from the imported amax history here.
  void exercise() override {
    constexpr int64_t kRows = 4, kCols = 128;
    const int64_t shape[2] = {kRows, kCols};
    int64_t grid[2] = {0, 0};
    if (!ok(frugal_quantizer_scale_shape(quantizer_, kRows, kCols, grid))) return;
    std::vector<float> input(kRows * kCols), fake(kRows * kCols);
    for (size_t i = 0; i < input.size(); ++i) input[i] = std::sin(static_cast<float>(i)) * 3.0f;
    std::vector<uint8_t> codes(kRows * kCols * 2);
    const auto scales = static_cast<size_t>(grid[0] * grid[1]);
    std::vector<float> scale(scales), scale_inv(scales), amax(1);
    std::vector<int8_t> zero(scales);
    const int64_t one[1] = {1};
    frugal_tensor in = host_view(input.data(), FRUGAL_DTYPE_FLOAT32, 2, shape);
    frugal_tensor out = host_view(codes.data(), layout_.dtype, 2, shape);
    frugal_tensor fake_view = host_view(fake.data(), FRUGAL_DTYPE_FLOAT32, 2, shape);
    frugal_tensor scale_view = host_view(scale.data(), FRUGAL_DTYPE_FLOAT32, 2, grid);
    frugal_tensor scale_inv_view = host_view(scale_inv.data(), layout_.scale_dtype, 2, grid);
    frugal_tensor amax_view = host_view(amax.data(), FRUGAL_DTYPE_FLOAT32, 1, one);
    frugal_tensor zero_view = host_view(zero.data(), FRUGAL_DTYPE_INT8, 2, grid);
    frugal_quant_zero_point_ext zero_ext{};
    frugal_quant_meta meta{};
    meta.struct_size = sizeof meta;
    meta.scaling_mode = layout_.scaling_mode;
    meta.block_rows = layout_.block_rows;
    meta.block_cols = layout_.block_cols;
    meta.scale = layout_.scale_dtype == FRUGAL_DTYPE_FLOAT32 ? &scale_view : nullptr;
    meta.scale_inv = &scale_inv_view;
    meta.amax = &amax_view;
    if ((layout_.flags & FRUGAL_QUANT_LAYOUT_ZERO_POINT) != 0) {
      zero_ext.header = {sizeof zero_ext, FRUGAL_EXT_QUANT_ZERO_POINT, 0, nullptr};
      zero_ext.zero_point = &zero_view;
      meta.ext = &zero_ext.header;
    }
    out.quant = &meta;
    frugal_quantize_args args{};
    args.struct_size = sizeof args;
    args.input = &in;
    args.output = &out;
    args.fake = &fake_view;
    for (int i = 0; i < 2; ++i) {
      if (!ok(frugal_quantizer_quantize(quantizer_, &args))) return;
      for (const float v : fake)
        if (!std::isfinite(v)) finding("fake-quant of finite inputs gave a non-finite value after an import");
    }
  }

 private:
  frugal_quantizer* quantizer_ = nullptr;
  frugal_quant_layout layout_{};
};

class RouterTarget final : public StateTarget {
 public:
  RouterTarget(const char* name, const std::vector<std::pair<const char*, const char*>>& entries) {
    frugal_options* options = options_of(entries);
    must(frugal_router_create(plugin_context(), name, options, &router_),
         std::string("the fuzz router configuration ") + name);
    frugal_options_destroy(options);
  }
  ~RouterTarget() override { frugal_router_destroy(router_); }
  std::vector<uint8_t> export_state() override {
    return exported([&](void* b, size_t c, size_t* s) { return frugal_router_export_state(router_, b, c, s); });
  }
  bool import_state(const std::vector<uint8_t>& blob) override {
    return ok(frugal_router_import_state(router_, blob.data(), blob.size()));
  }
  // Bias updates from uneven loads (the aux-loss-free balancing step).
  void exercise() override {
    std::array<int64_t, 8> load = {9, 1, 4, 4, 0, 7, 3, 4};
    const int64_t shape[1] = {static_cast<int64_t>(load.size())};
    const frugal_tensor view = host_view(load.data(), FRUGAL_DTYPE_INT64, 1, shape);
    for (int i = 0; i < 3; ++i) ok(frugal_router_update(router_, &view));
  }

 private:
  frugal_router* router_ = nullptr;
};

class LossScalerTarget : public StateTarget {
 public:
  LossScalerTarget() {
    if (!ok(frugal_loss_scaler_create(nullptr, &scaler_))) finding("frugal_loss_scaler_create failed");
  }
  ~LossScalerTarget() override { frugal_loss_scaler_destroy(scaler_); }
  // The loss scaler's state as a struct (get_state / set_state): its bytes are the blob.
  std::vector<uint8_t> export_state() override {
    frugal_loss_scaler_status state{};
    state.struct_size = sizeof state;
    if (!ok(frugal_loss_scaler_get_status(scaler_, &state))) return {};
    std::vector<uint8_t> blob(sizeof state);
    std::memcpy(blob.data(), &state, sizeof state);
    return blob;
  }
  bool import_state(const std::vector<uint8_t>& blob) override {
    frugal_loss_scaler_status state{};
    if (!blob.empty()) std::memcpy(&state, blob.data(), std::min(blob.size(), sizeof state));
    state.struct_size = sizeof state;
    return ok(frugal_loss_scaler_set_status(scaler_, &state));
  }
  void exercise() override {
    for (int i = 0; i < 5; ++i) ok(frugal_loss_scaler_update(scaler_, i == 2, nullptr));
    const double scale = frugal_loss_scaler_scale(scaler_);
    if (!std::isfinite(scale) || scale <= 0) finding("the loss scale left the positive finite numbers after an import");
  }

 protected:
  frugal_loss_scaler* scaler_ = nullptr;
};

// The same scaler through its byte format (frugal_loss_scaler_export_state,
// what checkpoints store): versioned, checksummed, every field range-checked.
class LossScalerBytesTarget final : public LossScalerTarget {
 public:
  std::vector<uint8_t> export_state() override {
    return exported([&](void* b, size_t c, size_t* s) { return frugal_loss_scaler_export_state(scaler_, b, c, s); });
  }
  bool import_state(const std::vector<uint8_t>& blob) override {
    return ok(frugal_loss_scaler_import_state(scaler_, blob.data(), blob.size()));
  }
};

using Factory = std::function<std::unique_ptr<StateTarget>()>;

const std::vector<Factory>& factories() {
  static const std::vector<Factory> all = {
      [] {
        return std::make_unique<SchedulerTarget>(
            std::vector<std::string>{"checkpoint_cadence", "spot_phase", "plateau_autoscaler", "early_stop"});
      },
      [] { return std::make_unique<SchedulerTarget>(std::vector<std::string>{"checkpoint_cadence"}); },
      [] { return std::make_unique<SchedulerTarget>(std::vector<std::string>{"spot_phase"}); },
      [] { return std::make_unique<SchedulerTarget>(std::vector<std::string>{"plateau_autoscaler"}); },
      [] { return std::make_unique<SchedulerTarget>(std::vector<std::string>{"early_stop"}); },
      [] {
        return std::make_unique<QuantizerTarget>(std::vector<std::pair<const char*, const char*>>{
            {"format", "e4m3"}, {"recipe", "delayed"}, {"history", "4"}});
      },
      [] {
        return std::make_unique<QuantizerTarget>(
            std::vector<std::pair<const char*, const char*>>{{"format", "e5m2"},
                                                             {"recipe", "delayed"},
                                                             {"history", "16"},
                                                             {"reduction", "most_recent"},
                                                             {"margin", "1"}});
      },
      [] {
        return std::make_unique<QuantizerTarget>(
            std::vector<std::pair<const char*, const char*>>{{"format", "e4m3"}, {"recipe", "current"}});
      },
      [] {
        return std::make_unique<QuantizerTarget>(std::vector<std::pair<const char*, const char*>>{
            {"format", "e4m3"}, {"recipe", "block"}, {"block_rows", "1"}, {"block_cols", "128"}});
      },
      [] {
        return std::make_unique<QuantizerTarget>(
            std::vector<std::pair<const char*, const char*>>{{"format", "e4m3"}, {"recipe", "mx"}});
      },
      [] {
        return std::make_unique<QuantizerTarget>(
            std::vector<std::pair<const char*, const char*>>{{"format", "int8_asym"}, {"recipe", "per_channel"}});
      },
      [] {
        return std::make_unique<RouterTarget>(
            "topk_softmax", std::vector<std::pair<const char*, const char*>>{{"experts", "8"}, {"k", "2"}});
      },
      [] {
        return std::make_unique<RouterTarget>(
            "deepseek_v3", std::vector<std::pair<const char*, const char*>>{
                               {"experts", "8"}, {"k", "2"}, {"groups", "4"}, {"topk_groups", "2"}, {"gamma", "0.01"}});
      },
      [] {
        return std::make_unique<RouterTarget>("expert_choice",
                                              std::vector<std::pair<const char*, const char*>>{{"experts", "8"}});
      },
      [] { return std::make_unique<LossScalerTarget>(); },
      [] { return std::make_unique<LossScalerBytesTarget>(); },
  };
  return all;
}

}  // namespace

size_t state_target_count() { return factories().size(); }

std::unique_ptr<StateTarget> make_state_target(size_t index) { return factories().at(index)(); }

}  // namespace frugal::fuzz
