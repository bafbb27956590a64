// Delayed scaling (Transformer Engine's default FP8 recipe): the scale used
// at step t comes from the amaxes seen at earlier steps, so a tensor can be
// cast in one pass while its own amax is being measured.
//
// Per tensor stream the state is a ring of the last H amaxes, a scale and
// its inverse. update(amax) with the amax just measured:
//   1. rolls the history: the new amax becomes the most recent entry and the
//      oldest (H steps ago) drops out;
//   2. reduces the history to one amax: `max` over all H entries, or
//      `most_recent` (the amax just recorded);
//   3. sets scale = fp8_max * 2^-margin / reduced (largest fp32 scale with
//      reduced * scale <= fp8_max * 2^-margin, clamped to [2^-126, 2^126];
//      scale_from_amax.hpp), scale_inv = 1 / scale.
// The scale is kept unchanged when
//   - the reduced amax is 0 (nothing measured yet, or an all-zero tensor
//     under most_recent): there is nothing to scale against; or
//   - the amax passed in is NaN or Inf: the step overflowed (and a loss
//     scaler will skip it), so its amax says nothing about the range.
// What enters the history for a NaN or Inf amax: 0. The history still rolls,
// so it stays one entry per step (H means "the last H steps"), but the
// non-finite value is not recorded. Transformer Engine records it, which
// under `max` poisons the reduction for the next H steps and freezes the
// scale that long after a single overflow (with H = 1024 and a dynamic loss
// scale that overflows every few thousand steps, most of training); a 0 is
// neutral under max and keeps the scale under most_recent.
//
// The initial state: history all 0, scale 1, scale_inv 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "recipes/limits.hpp"

namespace frugal::quant::recipes {

enum class AmaxReduction : uint8_t { max = 0, most_recent = 1 };

inline constexpr std::size_t kMaxHistory = std::size_t{1} << 16;
// Margins beyond +-16 (a factor of 65536 of headroom or of clipping) are
// configuration mistakes rather than recipes.
inline constexpr int kMinMargin = -16;
inline constexpr int kMaxMargin = 16;

struct DelayedScalingConfig {
  std::size_t history = 1024;  // H, 1 .. kMaxHistory
  AmaxReduction reduction = AmaxReduction::max;
  int margin = 0;            // kMinMargin .. kMaxMargin
  float fp8_max = kE4M3Max;  // finite, >= 4

  friend bool operator==(const DelayedScalingConfig&, const DelayedScalingConfig&) = default;
};

class DelayedScaling {
 public:
  // Throws std::invalid_argument naming the bad field.
  explicit DelayedScaling(const DelayedScalingConfig& config);

  // Records this step's amax (a magnitude: >= 0, NaN or +Inf) and updates
  // the scale as described above. Returns true when the scale was
  // recomputed, false when it was kept. Throws std::invalid_argument on a
  // negative amax (a caller bug; -0.0 is 0).
  bool update(float amax);

  [[nodiscard]] float scale() const noexcept { return scale_; }
  [[nodiscard]] float scale_inv() const noexcept { return scale_inv_; }
  [[nodiscard]] const DelayedScalingConfig& config() const noexcept { return config_; }
  // The history, most recent first (H entries).
  [[nodiscard]] std::vector<float> history() const;
  // Calls to update() so far, and how many of them had a NaN or Inf amax.
  [[nodiscard]] uint64_t steps() const noexcept { return steps_; }
  [[nodiscard]] uint64_t nonfinite_steps() const noexcept { return nonfinite_steps_; }

  // The state as a versioned, checksummed byte blob (sdk/state_blob.hpp;
  // fields in delayed_state.cpp), for a checkpoint to carry.
  [[nodiscard]] std::vector<std::byte> export_state() const;
  // Rebuilds the state from export_state()'s blob. Throws sdk::PluginError
  // naming what is wrong: INVALID_ARGUMENT for another strategy's blob or
  // another version, DATA_CORRUPTED for a truncated, extended or damaged
  // blob or a field out of range.
  [[nodiscard]] static DelayedScaling import_state(std::span<const std::byte> blob);

  friend bool operator==(const DelayedScaling&, const DelayedScaling&) = default;

 private:
  friend struct DelayedStateCodec;

  [[nodiscard]] float reduce() const noexcept;

  DelayedScalingConfig config_;
  std::vector<float> ring_;  // H entries; ring_[pos_] is the most recent
  std::size_t pos_ = 0;
  float scale_ = 1.0f;
  float scale_inv_ = 1.0f;
  uint64_t steps_ = 0;
  uint64_t nonfinite_steps_ = 0;
};

// Throws std::invalid_argument unless the config is valid.
void validate_config(const DelayedScalingConfig& config);

}  // namespace frugal::quant::recipes
