#include "fp8_fake_quant.hpp"

#include <array>
#include <stdexcept>
#include <string_view>

#include "frugal/sdk/host.hpp"
#include "host_tensor.hpp"

namespace frugal_demo {
namespace {

namespace host = frugal::host;

// Common practice keeps two kinds of Linear in full precision: the output
// head (its logits feed a softmax over the whole vocabulary, where FP8's
// 3 mantissa bits cost the most accuracy for a small share of the
// compute) and the MoE gate (a tiny matrix whose logits decide the
// routing: quantization noise there flips expert choices).
bool keep_full_precision(std::string_view name) { return name == "head" || name.ends_with(".moe.gate"); }

}  // namespace

class Fp8QuantHooks::Hook final : public FakeQuant {
 public:
  Hook(frugal_context* context, const frugal_options* options, std::string name)
      : name_(std::move(name)), quantizer_(host::make_quantizer(context, "quant_fp8", options)) {}

  void apply(std::span<const float> in, std::span<float> out, std::size_t rows, std::size_t cols,
             QuantRole /*role: one quantizer per tensor already knows its role*/) override {
    if (in.size() != rows * cols || out.size() != in.size())
      throw std::invalid_argument("fp8 hook '" + name_ + "': tensor sizes do not match rows x cols");
    if (in.empty()) return;    // nothing to quantize (and no amax to record)
    codes_.resize(in.size());  // grows once to the largest batch, then reused
    const std::array<std::int64_t, 2> shape{static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols)};
    const std::array<std::int64_t, 1> one{1};
    const frugal_tensor input = host_tensor(in.data(), FRUGAL_DTYPE_FLOAT32, shape);
    frugal_tensor output = host_tensor(codes_.data(), FRUGAL_DTYPE_FLOAT8_E4M3FN, shape);
    const frugal_tensor fake = host_tensor(out.data(), FRUGAL_DTYPE_FLOAT32, shape);
    const frugal_tensor scale_inv = host_tensor(&scale_inv_, FRUGAL_DTYPE_FLOAT32, one);
    const frugal_tensor amax = host_tensor(&amax_, FRUGAL_DTYPE_FLOAT32, one);
    frugal_quant_meta meta{};
    meta.struct_size = sizeof(meta);
    meta.scaling_mode = FRUGAL_SCALING_DELAYED;
    meta.scale_inv = &scale_inv;
    meta.amax = &amax;
    output.quant = &meta;
    frugal_quantize_args args{};
    args.struct_size = sizeof(args);
    args.input = &input;
    args.output = &output;
    args.fake = &fake;
    args.flags = frozen_ ? FRUGAL_QUANTIZE_FREEZE_SCALE : 0;
    host::check(frugal_quantizer_quantize(quantizer_.get(), &args));
  }

  [[nodiscard]] frugal_quantizer* quantizer() const { return quantizer_.get(); }
  [[nodiscard]] const std::string& name() const { return name_; }
  void set_frozen(bool frozen) { frozen_ = frozen; }

 private:
  std::string name_;
  host::QuantizerPtr quantizer_;
  std::vector<std::uint8_t> codes_;  // the FP8 codes; only the fake copy is used
  float scale_inv_ = 0;
  float amax_ = 0;
  bool frozen_ = false;
};

Fp8QuantHooks::Fp8QuantHooks(frugal_context* context, Model<float>& model) {
  if (context == nullptr) throw std::invalid_argument("Fp8QuantHooks: context is null");
  host::Options options;
  options.set("format", "e4m3").set("recipe", "delayed").set("history", 16);
  // The model's kernels already use every core; per-call threads would
  // only add start-up cost on these small tensors.
  options.set("threads", 1);
  try {
    model.for_each_linear([&](const std::string& name, Linear<float>& linear) {
      if (keep_full_precision(name)) {
        kept_.push_back(name);
        return;
      }
      auto weight = std::make_unique<Hook>(context, options.get(), name + ".weight");
      auto input = std::make_unique<Hook>(context, options.get(), name + ".input");
      linear.set_fake_quant(weight.get(), input.get());
      hooked_linears_.push_back(&linear);
      hooks_.push_back(std::move(weight));
      hooks_.push_back(std::move(input));
    });
  } catch (...) {
    for (Linear<float>* linear : hooked_linears_) linear->set_fake_quant(nullptr, nullptr);
    throw;
  }
}

Fp8QuantHooks::~Fp8QuantHooks() {
  for (Linear<float>* linear : hooked_linears_) linear->set_fake_quant(nullptr, nullptr);
}

std::vector<std::string> Fp8QuantHooks::names() const {
  std::vector<std::string> out;
  for (const auto& hook : hooks_) out.push_back(hook->name());
  return out;
}

FakeQuant& Fp8QuantHooks::hook(std::size_t index) { return *hooks_.at(index); }

void Fp8QuantHooks::set_frozen(bool frozen) {
  for (const auto& hook : hooks_) hook->set_frozen(frozen);
}

frugal_quantizer* Fp8QuantHooks::quantizer(std::size_t index) const { return hooks_.at(index)->quantizer(); }

}  // namespace frugal_demo
