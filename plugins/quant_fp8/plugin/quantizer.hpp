// The quant_fp8 quantizer instance: its options, the delayed-scaling state
// when the recipe has one, and the vtable's operations (through
// sdk/quantizer_adapter.hpp).
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "frugal/quantizer_vtable.h"
#include "frugal/sdk/plugin_support.hpp"
#include "ops/quant_op.hpp"
#include "plugin/amax_group.hpp"
#include "plugin/config.hpp"
#include "recipes/delayed_scaling.hpp"

namespace frugal::quant::plugin {

class Fp8Quantizer {
 public:
  explicit Fp8Quantizer(const sdk::Options& options);

  [[nodiscard]] frugal_quant_layout layout() const { return layout_of(config_); }
  // Delayed: quantizes with the state's current scale, then records this
  // call's amax (unless FRUGAL_QUANTIZE_FREEZE_SCALE), all under the state
  // lock, so concurrent calls see one well-defined sequence of scales.
  // With amax_comm the amax recorded is the group's max, all-reduced while
  // the lock is held (so the order of recorded amaxes is this rank's order
  // of calls, which every rank must share); when the collective fails the
  // error is the comm's and nothing is recorded (the output was written
  // with the unchanged scale).
  // Current with amax_comm: measures the amax, all-reduces it, then casts
  // with the scale of the group's amax (one pass more over the input).
  void quantize(const frugal_quantize_call& args);
  void dequantize(const frugal_dequantize_call& args) const;
  void gemm(const frugal_quant_gemm_call& args) const;
  // The DelayedScaling blob (recipes/delayed_state.cpp); empty for the
  // stateless recipes.
  [[nodiscard]] std::vector<std::byte> export_state() const;
  // Accepts only a blob made under the same options; on any error the
  // state is left as it was.
  void import_state(std::span<const std::byte> blob);

 private:
  void quantize_current_agreed(ops::QuantizeOp& op, const frugal_device& device) const;

  QuantConfig config_;
  std::optional<AmaxGroup> group_;                  // option amax_comm
  mutable std::mutex mutex_;                        // guards delayed_
  std::optional<recipes::DelayedScaling> delayed_;  // recipe delayed only
};

}  // namespace frugal::quant::plugin
