// The state fuzz_ckpt_store and its seed generator register with the
// engine: weights in every kind, optimizer moments in full checkpoints
// only, and a step counter, so restores exercise both kinds' rules; and two
// host states, so the manifest's state section and the state imports are
// reached too: a loss scaler (its byte format, in every kind) and host
// bytes (in full checkpoints only).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

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
  frugal_loss_scaler* scaler = nullptr;
  std::vector<uint8_t> host_bytes;  // the full-only host state

  // The most host bytes an import takes (the seeds export a few dozen).
  static constexpr size_t kMaxHostBytes = 4096;

  CkptState() {
    if (!ok(frugal_loss_scaler_create(nullptr, &scaler))) finding("frugal_loss_scaler_create failed");
  }
  ~CkptState() { frugal_loss_scaler_destroy(scaler); }
  CkptState(const CkptState&) = delete;
  CkptState& operator=(const CkptState&) = delete;

  // Registers the three tensors and the two states; false when the engine refuses one.
  bool register_with(frugal_ckpt_engine* engine) {
    const frugal_tensor w = host_view(weights.data(), FRUGAL_DTYPE_FLOAT32, 2, weights_shape);
    const frugal_tensor m = host_view(moments.data(), FRUGAL_DTYPE_FLOAT32, 1, moments_shape);
    const frugal_tensor s = host_view(step.data(), FRUGAL_DTYPE_INT64, 1, step_shape);
    frugal_ckpt_state_fns fns{};
    fns.struct_size = sizeof fns;
    fns.user_data = this;
    fns.export_state = [](void* user, void* buffer, size_t capacity, size_t* size) -> frugal_error* {
      const auto& bytes = static_cast<CkptState*>(user)->host_bytes;
      *size = bytes.size();
      if (buffer == nullptr) return nullptr;
      if (capacity < bytes.size()) return frugal_error_create(FRUGAL_ERR_OUT_OF_RANGE, "host bytes: buffer too small");
      if (!bytes.empty()) std::memcpy(buffer, bytes.data(), bytes.size());
      return nullptr;
    };
    fns.import_state = [](void* user, const void* data, size_t size) -> frugal_error* {
      if (data == nullptr) finding("a state import was given NULL");
      if (size > kMaxHostBytes) return frugal_error_create(FRUGAL_ERR_DATA_CORRUPTED, "host bytes: too many");
      const auto* bytes = static_cast<const uint8_t*>(data);
      static_cast<CkptState*>(user)->host_bytes.assign(bytes, bytes + size);
      return nullptr;
    };
    frugal_error* errors[] = {frugal_ckpt_register(engine, "model/weights", &w, 0),
                              frugal_ckpt_register(engine, "optim/moments", &m, FRUGAL_CKPT_FULL),
                              frugal_ckpt_register(engine, "step", &s, 0),
                              frugal_ckpt_register_loss_scaler(engine, "amp/loss_scaler", scaler, 0),
                              frugal_ckpt_register_state(engine, "host/bytes", &fns, FRUGAL_CKPT_FULL)};
    bool all = true;
    for (frugal_error* e : errors) {
      all = all && e == nullptr;
      frugal_error_destroy(e);
    }
    return all;
  }

  // What every accepted import must leave: a loss scale a host can multiply by.
  void check_restored() const {
    const double scale = frugal_loss_scaler_scale(scaler);
    if (!std::isfinite(scale) || scale <= 0) finding("a restore left the loss scale non-finite or not positive");
  }
};

}  // namespace frugal::fuzz
