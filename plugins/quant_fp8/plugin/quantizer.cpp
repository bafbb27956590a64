#include "plugin/quantizer.hpp"

#include <string>

#include "cuda/cuda_ops.hpp"
#include "ops/cpu_ops.hpp"
#include "plugin/device_dispatch.hpp"
#include "plugin/op_views.hpp"

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

}  // namespace

Fp8Quantizer::Fp8Quantizer(const sdk::Options& options) : config_(read_config(options)) {
  if (config_.recipe == ops::Recipe::delayed) delayed_.emplace(config_.delayed);
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
    run(false);
    return;
  }
  const bool record = (args.flags & FRUGAL_QUANTIZE_FREEZE_SCALE) == 0;
  const std::lock_guard lock(mutex_);
  call.op.fixed_scale = delayed_->scale();
  call.op.fixed_scale_inv = delayed_->scale_inv();
  const float amax = run(record);
  if (record) delayed_->update(amax);
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
