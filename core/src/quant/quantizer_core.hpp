// The object behind frugal_quantizer: a plugin instance, its checked layout,
// and the calls that validate hosts' tensors before the plugin sees them:
// each takes the host's argument struct (quantizer.h) and hands the plugin
// the normalised one (a frugal_*_call of quantizer_vtable.h).
// Internal to libfrugal.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "frugal/quantizer.h"
#include "loaded_plugin.hpp"
#include "strategy_instance.hpp"

namespace frugal::quant {

class QuantizerCore {
 public:
  QuantizerCore(std::shared_ptr<LoadedPlugin> plugin, const StrategyRecord& record, const std::string& strategy);
  QuantizerCore(const QuantizerCore&) = delete;
  QuantizerCore& operator=(const QuantizerCore&) = delete;

  // Creates the plugin instance and reads and checks its layout.
  void create_instance(const frugal_options* options);

  [[nodiscard]] const frugal_quant_layout& layout() const noexcept { return layout_; }
  void quantize(const frugal_quantize_args& args);
  void dequantize(const frugal_dequantize_args& args);
  void gemm(const frugal_quant_gemm_args& args);
  // Sets *size to the state's size (also when failing for want of room)
  // and writes the state when buffer is not null and it fits.
  void export_state(void* buffer, std::size_t capacity, std::size_t* size);
  void import_state(const void* data, std::size_t size);

 private:
  void check_layout() const;

  StrategyInstance<frugal_quantizer_vtable> instance_;  // labelled "quantizer 'quant_fp8'"
  frugal_quant_layout layout_{};
};

}  // namespace frugal::quant

struct frugal_quantizer {
  std::unique_ptr<frugal::quant::QuantizerCore> core;
};
