// The bias balancer's state blob, framed by the SDK's one codec
// (frugal/sdk/state_blob.hpp: magic, version, little-endian fields, a
// trailing XXH3-64), so a checkpoint moves between machines:
//
//   magic "FRBB" (Frugal Router Bias Balancer), version 2
//   u64 experts E, 1 .. kMaxExperts
//   f32 gamma, finite, >= 0
//   u64 steps (update() calls)
//   E x f32 biases, each finite
//
// Version 1 (a CRC-32 trailer, a u32 E) is refused as another version.
// The first failed check throws sdk::PluginError naming it.
#include <string>

#include "algorithms/bias_balancer.hpp"
#include "frugal/sdk/state_blob.hpp"

namespace frugal::router {
namespace {

constexpr const char* kMagic = "FRBB";
constexpr uint32_t kVersion = 2;

}  // namespace

struct BiasStateCodec {
  static std::vector<std::byte> encode(const BiasBalancer& b) {
    sdk::StateWriter w(kMagic, kVersion);
    w.u64(b.bias_.size()).f32(b.gamma_).u64(b.steps_);
    for (const float v : b.bias_) w.f32(v);
    return std::move(w).finish();
  }

  static BiasBalancer decode(std::span<const std::byte> blob) {
    sdk::StateReader r(blob, kMagic, kVersion, "router bias state");
    const auto experts = static_cast<int64_t>(r.count("experts", BiasBalancer::kMaxExperts, 4));
    if (experts < 1) r.corrupted("field 'experts' is 0; a balancer has at least one expert");
    const float gamma = r.at_least_f32("gamma", 0.0f);
    BiasBalancer b(experts, gamma);
    b.steps_ = r.u64("steps");
    for (float& v : b.bias_) v = r.finite_f32("bias");
    r.finish();
    return b;
  }
};

std::vector<std::byte> BiasBalancer::export_state() const { return BiasStateCodec::encode(*this); }

BiasBalancer BiasBalancer::import_state(std::span<const std::byte> blob) { return BiasStateCodec::decode(blob); }

}  // namespace frugal::router
