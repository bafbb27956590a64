#include "plugin/quantizer.hpp"

#include <string>

#include "cuda/cuda_ops.hpp"
#include "ops/cpu_ops.hpp"
#include "plugin/device_dispatch.hpp"
#include "plugin/op_views.hpp"
#include "recipes/limits.hpp"
#include "recipes/scale_from_amax.hpp"

namespace frugal::quant::plugin {
namespace {

using sdk::PluginError;

// Why a delayed-scaling blob's config differs from this quantizer's
// options (naming the option), or an empty string when it does not.
std::string config_mismatch(const recipes::DelayedScalingConfig& blob, const recipes::DelayedScalingConfig& mine) {
  const auto differs = [](const char* option, auto theirs, auto ours) {
    return "import_state: the state was saved with " + std::string(option) + " " + std::to_string(theirs) +
           "; this quantizer's option '" + option + "' is " + std::to_string(ours);
  };
  if (blob.history != mine.history) return differs("history", blob.history, mine.history);
  if (blob.reduction != mine.reduction) {
    const auto name = [](recipes::AmaxReduction r) {
      return r == recipes::AmaxReduction::max ? std::string("max") : std::string("most_recent");
    };
    return "import_state: the state was saved with reduction " + name(blob.reduction) +
           "; this quantizer's option 'reduction' is " + name(mine.reduction);
  }
  if (blob.margin != mine.margin) return differs("margin", blob.margin, mine.margin);
  if (blob.fp8_max != mine.fp8_max) {
    return "import_state: the state was saved for an fp8 maximum of " + std::to_string(blob.fp8_max) +
           "; this quantizer's option 'format' gives " + std::to_string(mine.fp8_max);
  }
  return {};
}

// The largest finite value of a symmetric format (current scaling's target).
float format_max(ops::ElementFormat format) {
  switch (format) {
    case ops::ElementFormat::e4m3: return recipes::kE4M3Max;
    case ops::ElementFormat::e5m2: return recipes::kE5M2Max;
    case ops::ElementFormat::int8:
    case ops::ElementFormat::int8_asym: break;
  }
  return recipes::kInt8Max;
}

}  // namespace

Fp8Quantizer::Fp8Quantizer(const sdk::Options& options) : config_(read_config(options)) {
  if (config_.amax_comm != nullptr) group_.emplace(options.host(), config_.amax_comm);
  if (config_.recipe == ops::Recipe::delayed) delayed_.emplace(config_.delayed);
}

// Current scaling over the group: this rank's amax, the group's max, then
// the per-tensor cast with the scale that max gives, which the ops run as
// their fixed-scale (delayed) path: for one scale the bytes are those of
// current scaling (ops/quant_op.hpp), and the amax written is this rank's.
void Fp8Quantizer::quantize_current_agreed(ops::QuantizeOp& op, const frugal_device& device) const {
  const float local = on_device(
      device, "quantize", [&] { return ops::amax_cpu(op.input, op.threads); },
      [&] {
        // No amax-only kernel: a first cast with scale 1 measures it (its
        // codes and scales are overwritten below). Without fake and
        // output_t, since fake may be the input.
        ops::QuantizeOp probe = op;
        probe.recipe = ops::Recipe::delayed;
        probe.fixed_scale = 1.0f;
        probe.fixed_scale_inv = 1.0f;
        probe.output_t = nullptr;
        probe.fake = nullptr;
        probe.scales_t = {};
        float amax = 0.0f;
        cuda::quantize_cuda(probe, &amax);
        return amax;
      });
  const float agreed = group_->max(local, "nothing was written");
  const recipes::ScalePair s = recipes::current_scale(agreed, format_max(config_.format));
  op.recipe = ops::Recipe::delayed;
  op.fixed_scale = s.scale;
  op.fixed_scale_inv = s.scale_inv;
  on_device(
      device, "quantize", [&] { ops::quantize_cpu(op); }, [&] { cuda::quantize_cuda(op, nullptr); });
}

void Fp8Quantizer::quantize(const frugal_quantize_call& args) {
  QuantizeCall call(config_, args);
  const frugal_device device = args.input->device;
  // Returns the input's amax when `want_amax` (the CUDA path reads it back
  // only then, since that waits for the stream).
  const auto run = [&](bool want_amax) {
    return on_device(
        device, "quantize", [&] { return ops::quantize_cpu(call.op); },
        [&] {
          float amax = 0.0f;
          cuda::quantize_cuda(call.op, want_amax ? &amax : nullptr);
          return amax;
        });
  };
  if (!delayed_) {
    if (group_)
      quantize_current_agreed(call.op, device);
    else
      run(false);
    return;
  }
  const bool record = (args.flags & FRUGAL_QUANTIZE_FREEZE_SCALE) == 0;
  const std::lock_guard lock(mutex_);
  call.op.fixed_scale = delayed_->scale();
  call.op.fixed_scale_inv = delayed_->scale_inv();
  const float amax = run(record);
  if (!record) return;
  // The collective runs under the lock: concurrent calls on this rank
  // record their amaxes in one order, the order of their all-reduces. If
  // it throws, nothing is recorded.
  delayed_->update(group_ ? group_->max(amax, "this call's amax was not recorded (the state is unchanged)") : amax);
}

void Fp8Quantizer::dequantize(const frugal_dequantize_call& args) const {
  const ops::DequantizeOp op = dequantize_op(config_, args);
  on_device(
      args.input->device, "dequantize", [&] { ops::dequantize_cpu(op); }, [&] { cuda::dequantize_cuda(op); });
}

void Fp8Quantizer::gemm(const frugal_quant_gemm_call& args) const {
  const ops::GemmOp op = gemm_op(config_, args);
  on_device(
      args.a->device, "gemm", [&] { ops::gemm_cpu(op); }, [&] { cuda::gemm_cuda(op); });
}

std::vector<std::byte> Fp8Quantizer::export_state() const {
  if (!delayed_) return {};
  const std::lock_guard lock(mutex_);
  return delayed_->export_state();
}

void Fp8Quantizer::import_state(std::span<const std::byte> blob) {
  if (!delayed_) {
    if (!blob.empty()) {
      throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT,
                        std::string("import_state: recipe ") + recipe_name(config_.recipe) +
                            " keeps no state; expected an empty blob, got " + std::to_string(blob.size()) + " bytes");
    }
    return;
  }
  // Decode and check everything before touching the state.
  std::optional<recipes::DelayedScaling> imported;
  try {
    imported.emplace(recipes::DelayedScaling::import_state(blob));
  } catch (const PluginError& e) {
    throw PluginError(e.code(), std::string("import_state: ") + e.what());
  }
  if (const std::string why = config_mismatch(imported->config(), config_.delayed); !why.empty())
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, why);
  const std::lock_guard lock(mutex_);
  *delayed_ = std::move(*imported);
}

}  // namespace frugal::quant::plugin
