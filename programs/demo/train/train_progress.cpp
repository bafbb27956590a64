#include "train_progress.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>

#include "frugal/sdk/state_blob.hpp"

namespace frugal_demo {
namespace {

constexpr const char* kMagic = "FDTP";
constexpr std::uint32_t kVersion = 1;

}  // namespace

std::vector<std::uint8_t> encode_train_progress(const TrainProgress& p) {
  frugal::sdk::StateWriter w(kMagic, kVersion);
  w.u64(p.step).i64(p.adam_steps).i64(p.tokens).f64(p.last_loss).u32(p.resource);
  const std::vector<std::byte> bytes = std::move(w).finish();
  const auto* first = reinterpret_cast<const std::uint8_t*>(bytes.data());
  return {first, first + bytes.size()};
}

TrainProgress decode_train_progress(std::span<const std::uint8_t> bytes) {
  frugal::sdk::StateReader r(std::as_bytes(bytes), kMagic, kVersion, "train/progress");
  TrainProgress p;
  p.step = r.u64("step");
  p.adam_steps = r.counter("AdamW steps");
  p.tokens = r.counter("tokens");
  p.last_loss = r.finite("last loss");
  p.resource = r.u32("capacity class");
  r.finish();
  if (p.resource != 1 && p.resource != 2)  // FRUGAL_RESOURCE_SPOT, FRUGAL_RESOURCE_RESERVED
    throw std::runtime_error("train/progress: capacity class " + std::to_string(p.resource) +
                             " is neither spot (1) nor reserved (2)");
  if (static_cast<std::uint64_t>(p.adam_steps) != p.step)
    throw std::runtime_error("train/progress: AdamW steps " + std::to_string(p.adam_steps) + " do not match step " +
                             std::to_string(p.step));
  return p;
}

}  // namespace frugal_demo
