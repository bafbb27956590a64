// The delayed-scaling state blob, framed by the SDK's one codec
// (frugal/sdk/state_blob.hpp: magic, version, little-endian fields, a
// trailing XXH3-64), so a checkpoint moves between machines:
//
//   magic "FQDS" (Frugal Quantizer Delayed Scaling), version 2
//   u64 history length H, 1 .. kMaxHistory
//   u8  reduction: 0 max, 1 most_recent
//   i64 margin, kMinMargin .. kMaxMargin
//   f32 fp8_max, finite, >= 4
//   f32 scale, in [kMinScale, kMaxScale]
//   f32 scale_inv, == 1.0f / scale exactly
//   u64 position of the most recent entry in the ring, < H
//   u64 steps (update() calls)
//   u64 non-finite steps, <= steps
//   H x f32 ring entries in storage order, each finite and >= +0
//
// Checks run in that order (the codec checks magic and version first, so a
// newer blob is reported as such rather than as a bad checksum); the first
// failure throws sdk::PluginError naming the field. Version 1 (fixed
// offsets, a CRC-32 trailer) is refused as another version.
#include <cmath>
#include <string>

#include "frugal/sdk/state_blob.hpp"
#include "recipes/delayed_scaling.hpp"
#include "recipes/scale_from_amax.hpp"

namespace frugal::quant::recipes {
namespace {

constexpr const char* kMagic = "FQDS";
constexpr uint32_t kVersion = 2;

using Reader = sdk::StateReader;

}  // namespace

struct DelayedStateCodec {
  static std::vector<std::byte> encode(const DelayedScaling& s) {
    sdk::StateWriter w(kMagic, kVersion);
    w.u64(s.ring_.size()).u8(static_cast<uint8_t>(s.config_.reduction)).i64(s.config_.margin);
    w.f32(s.config_.fp8_max).f32(s.scale_).f32(s.scale_inv_);
    w.u64(s.pos_).u64(s.steps_).u64(s.nonfinite_steps_);
    for (const float v : s.ring_) w.f32(v);
    return std::move(w).finish();
  }

  static DelayedScaling decode(std::span<const std::byte> blob) {
    Reader r(blob, kMagic, kVersion, "delayed scaling state");
    DelayedScalingConfig config;
    config.history = r.count("history", kMaxHistory, 4);
    if (config.history < 1) r.corrupted("field 'history' is 0; it must be in [1, " + std::to_string(kMaxHistory) + "]");
    const uint8_t reduction = r.u8("reduction");
    if (reduction > 1)
      r.corrupted("field 'reduction' is " + std::to_string(reduction) + ", unknown (0 max, 1 most_recent)");
    config.reduction = static_cast<AmaxReduction>(reduction);
    config.margin = static_cast<int>(r.i64_in("margin", kMinMargin, kMaxMargin));
    config.fp8_max = r.at_least_f32("fp8_max", 4.0f);
    DelayedScaling s(config);
    s.scale_ = r.at_least_f32("scale", kMinScale);
    if (s.scale_ > kMaxScale)
      r.corrupted("field 'scale' is " + sdk::number_text(s.scale_) + "; it must be in [2^-126, 2^126]");
    s.scale_inv_ = r.f32("scale_inv");
    if (s.scale_inv_ != 1.0f / s.scale_) {
      r.corrupted("field 'scale_inv' is " + sdk::number_text(s.scale_inv_) + ", not 1 / scale (" +
                  sdk::number_text(1.0f / s.scale_) + ")");
    }
    s.pos_ = static_cast<std::size_t>(r.i64_in("position", 0, static_cast<int64_t>(config.history) - 1));
    s.steps_ = r.u64("steps");
    s.nonfinite_steps_ = r.u64("non-finite steps");
    if (s.nonfinite_steps_ > s.steps_) {
      r.corrupted("non-finite steps " + std::to_string(s.nonfinite_steps_) + " exceed steps " +
                  std::to_string(s.steps_));
    }
    for (std::size_t i = 0; i < config.history; ++i) {
      const float v = r.f32("history entry");
      // +0 only: update() never stores -0.0, NaN, Inf or a negative value.
      if (!(v >= 0.0f) || std::isinf(v) || std::signbit(v)) {
        r.corrupted("history entry " + std::to_string(i) + " is " + sdk::number_text(v) + ", not a finite amax >= 0");
      }
      s.ring_[i] = v;
    }
    r.finish();
    return s;
  }
};

std::vector<std::byte> DelayedScaling::export_state() const { return DelayedStateCodec::encode(*this); }

DelayedScaling DelayedScaling::import_state(std::span<const std::byte> blob) { return DelayedStateCodec::decode(blob); }

}  // namespace frugal::quant::recipes
