// The tour of samples/README.md in C++, split by what each step is about:
//   main.cpp                      step 1 (plugins) and the driver that stops
//                                 at the first mismatch;
//   schedule_and_pack.cpp         steps 2-3: the LR schedule, packing;
//   route_and_quantize.cpp        steps 4-5: MoE routing, FP8 quantization;
//   scheduler_and_checkpoint.cpp  steps 6-7, what keeps a run going: the
//                                 scheduler's decisions and ledger, and a
//                                 checkpoint round trip.
// Every frugal object is held by an owning handle of frugal/sdk/host.hpp,
// so a step that throws (host::Exception from frugal, Mismatch from a
// check) leaves nothing behind.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "frugal/frugal.h"
#include "frugal/sdk/host.hpp"

namespace tour {

namespace host = frugal::host;

// A value the tour computed is not the one it expected.
class Mismatch : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A Mismatch whose message is formatted as printf would, so that numbers
// read the same as in the C tour.
template <typename... Args>
Mismatch mismatch(const char* format, Args... args) {
  char text[256];
  std::snprintf(text, sizeof(text), format, args...);
  return Mismatch(text);
}

// The one 64-bit linear congruential stream every tour sample draws from.
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : state_(seed) {}

  // The next 31 bits.
  uint64_t next() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return state_ >> 33;
  }

  // A value in [-1, 1).
  float uniform() { return static_cast<float>(static_cast<double>(next()) / 2147483648.0 * 2.0 - 1.0); }

 private:
  uint64_t state_;
};

// A frugal_tensor describing a compact, row-major host array of at most two
// dimensions. It holds its own copy of the shape, so the view is valid as
// long as this object and the array are; it can be neither copied nor
// moved, since the view points into it.
class HostTensor {
 public:
  HostTensor(void* data, int32_t dtype, std::initializer_list<int64_t> shape) {
    if (shape.size() < 1 || shape.size() > shape_.size())
      throw std::invalid_argument("HostTensor takes 1 or 2 dimensions, not " + std::to_string(shape.size()));
    std::size_t d = 0;
    for (const int64_t extent : shape) shape_[d++] = extent;
    tensor_.struct_size = sizeof(tensor_);
    tensor_.data = data;
    tensor_.dtype = dtype;
    tensor_.ndim = static_cast<int32_t>(shape.size());
    tensor_.device.type = FRUGAL_DEVICE_CPU;
    tensor_.shape = shape_.data();
  }
  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;

  // Attaches quantization metadata (owned by the caller, outliving this view).
  void set_quant(const frugal_quant_meta* meta) noexcept { tensor_.quant = meta; }

  [[nodiscard]] const frugal_tensor* get() const noexcept { return &tensor_; }

 private:
  std::array<int64_t, 2> shape_{};
  frugal_tensor tensor_{};
};

// The tour's cosine schedule (steps 2 and 6).
inline constexpr double kPeakLr = 3e-4;
inline constexpr double kMinLr = 3e-5;
inline constexpr int64_t kWarmupSteps = 100;
inline constexpr int64_t kTotalSteps = 1000;

inline host::Options cosine_options() {
  host::Options options;
  options.set("lr", kPeakLr).set("min_lr", kMinLr).set("warmup_steps", kWarmupSteps).set("total_steps", kTotalSteps);
  return options;
}

// The steps after step 1; each prints its line or throws.
void schedule_step(host::Context& context);
void pack_step(host::Context& context);
void route_step(host::Context& context);
void quantize_step(host::Context& context);
void scheduler_step(host::Context& context);
void checkpoint_step(host::Context& context);

}  // namespace tour
