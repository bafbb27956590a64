// FP8 quantization-aware training backed by the quant_fp8 plugin: one
// frugal_quantizer (E4M3, delayed scaling, amax history 16) per hooked
// tensor, i.e. the weight and the input of every Linear except the ones
// kept in full precision (see kept_full_precision()). Each forward sees
// dequantize(quantize(x)); the model's backward treats the round trip as
// identity (straight-through).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fake_quant.hpp"
#include "frugal/frugal.h"
#include "model.hpp"

namespace frugal_demo {

class Fp8QuantHooks {
 public:
  // Attaches the hooks to `model`, which must outlive this object (the
  // destructor detaches them). Throws std::runtime_error with frugal's
  // message when a quantizer cannot be created.
  Fp8QuantHooks(frugal_context* context, Model<float>& model);
  Fp8QuantHooks(const Fp8QuantHooks&) = delete;
  Fp8QuantHooks& operator=(const Fp8QuantHooks&) = delete;
  ~Fp8QuantHooks();

  // Hooked tensors (two per quantized Linear), e.g. "layers.0.attn.qkv.weight".
  [[nodiscard]] std::size_t hooked() const { return hooks_.size(); }
  [[nodiscard]] std::vector<std::string> names() const;
  // Hooked tensor `index` (in names() order) as the model sees it.
  FakeQuant& hook(std::size_t index);
  // Hooked tensor `index`'s quantizer (owned here, alive as long as this
  // object), for registering its recipe state (amax history) with a
  // checkpoint engine (frugal_ckpt_register_quantizer); std::out_of_range
  // past hooked().
  [[nodiscard]] frugal_quantizer* quantizer(std::size_t index) const;
  // The Linears left in full precision.
  [[nodiscard]] const std::vector<std::string>& kept_full_precision() const { return kept_; }

  // While frozen (evaluation), quantizing uses the current scales and
  // records no amax, so an eval pass leaves the training state untouched.
  void set_frozen(bool frozen);

  class Hook;  // one quantizer behind the model's FakeQuant interface

 private:
  std::vector<std::unique_ptr<Hook>> hooks_;
  std::vector<Linear<float>*> hooked_linears_;
  std::vector<std::string> kept_;
};

}  // namespace frugal_demo
