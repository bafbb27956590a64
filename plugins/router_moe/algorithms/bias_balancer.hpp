// Aux-loss-free load balancing (DeepSeek-V3, sec. 2.1.2; Wang et al. 2024):
// after each step every expert's selection bias moves by a fixed speed
// gamma toward balance, b_i += gamma * sign(mean_load - load_i). The bias is
// the state a checkpoint must carry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace frugal::router {

class BiasBalancer {
 public:
  static constexpr int64_t kMaxExperts = int64_t{1} << 20;

  // experts in [1, kMaxExperts], gamma finite and >= 0; biases start at 0.
  BiasBalancer(int64_t experts, float gamma);

  [[nodiscard]] std::span<const float> bias() const noexcept { return bias_; }
  [[nodiscard]] float gamma() const noexcept { return gamma_; }
  [[nodiscard]] uint64_t steps() const noexcept { return steps_; }

  // load[i] = assignments expert i was asked for this step (before drops:
  // the router's choice is what the bias steers). The sign is decided in
  // integers (sum - E * load_i), so an exactly average expert does not move.
  void update(std::span<const int64_t> load);

  // A versioned, checksummed blob (sdk/state_blob.hpp; fields in
  // bias_state.cpp). import_state throws sdk::PluginError naming what is
  // wrong: INVALID_ARGUMENT for another strategy's blob or another
  // version, DATA_CORRUPTED for damage; nothing is built then.
  [[nodiscard]] std::vector<std::byte> export_state() const;
  [[nodiscard]] static BiasBalancer import_state(std::span<const std::byte> blob);

  friend bool operator==(const BiasBalancer&, const BiasBalancer&) = default;

 private:
  friend struct BiasStateCodec;
  std::vector<float> bias_;
  float gamma_ = 0.0f;
  uint64_t steps_ = 0;
};

}  // namespace frugal::router
