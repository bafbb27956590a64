// The state fuzz_ckpt_store and its seed generator register with the
// engine: weights in every kind, optimizer moments in full checkpoints
// only, and a step counter, so restores exercise both kinds' rules.
#pragma once

#include <array>
#include <cstdint>

#include "frugal/frugal.h"
#include "fuzz_support.hpp"

namespace frugal::fuzz {

struct CkptState {
  std::array<float, 32> weights{};
  std::array<float, 16> moments{};
  std::array<int64_t, 1> step{};
  int64_t weights_shape[2] = {4, 8};
  int64_t moments_shape[1] = {16};
  int64_t step_shape[1] = {1};

  // Registers the three tensors; false when the engine refuses one.
  bool register_with(frugal_ckpt_engine* engine) {
    const frugal_tensor w = host_view(weights.data(), FRUGAL_DTYPE_FLOAT32, 2, weights_shape);
    const frugal_tensor m = host_view(moments.data(), FRUGAL_DTYPE_FLOAT32, 1, moments_shape);
    const frugal_tensor s = host_view(step.data(), FRUGAL_DTYPE_INT64, 1, step_shape);
    frugal_error* errors[] = {frugal_ckpt_register(engine, "model/weights", &w, 0),
                              frugal_ckpt_register(engine, "optim/moments", &m, FRUGAL_CKPT_FULL),
                              frugal_ckpt_register(engine, "step", &s, 0)};
    bool all = true;
    for (frugal_error* e : errors) {
      all = all && e == nullptr;
      frugal_error_destroy(e);
    }
    return all;
  }
};

}  // namespace frugal::fuzz
