// The bias balancer's state blob, version 1. Every field little-endian,
// whatever the host's byte order, so a checkpoint moves between machines:
//
//   offset  size  field
//        0     4  magic "FRBB" (Frugal Router Bias Balancer)
//        4     4  u32 version = 1
//        8     4  u32 experts E, 1 .. kMaxExperts
//       12     4  f32 gamma, finite, >= 0
//       16     8  u64 steps (update() calls)
//       24    4E  f32 biases, each finite
//   24 + 4E    4  u32 CRC-32 of bytes [0, 24 + 4E)
//
// Magic and version are checked first (a newer blob is reported as such,
// not as a bad checksum), then size, checksum and fields; the first failure
// throws StateError naming it.
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "algorithms/bias_balancer.hpp"
#include "frugal/sdk/crc32.hpp"

namespace frugal::router {
namespace {

constexpr char kMagic[4] = {'F', 'R', 'B', 'B'};
constexpr uint32_t kVersion = 1;
constexpr std::size_t kHeaderSize = 24;
constexpr std::size_t kCrcSize = 4;

void put(std::vector<std::byte>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
}

uint64_t get(std::span<const std::byte> in, std::size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::to_integer<uint64_t>(in[at + static_cast<std::size_t>(i)]) << (8 * i);
  return v;
}

float get_f32(std::span<const std::byte> in, std::size_t at) {
  return std::bit_cast<float>(static_cast<uint32_t>(get(in, at, 4)));
}

[[noreturn]] void fail(const std::string& what) { throw StateError("router bias state: " + what); }

}  // namespace

struct BiasStateCodec {
  static std::vector<std::byte> encode(const BiasBalancer& b) {
    std::vector<std::byte> out;
    out.reserve(kHeaderSize + 4 * b.bias_.size() + kCrcSize);
    for (const char c : kMagic) out.push_back(static_cast<std::byte>(c));
    put(out, kVersion, 4);
    put(out, b.bias_.size(), 4);
    put(out, std::bit_cast<uint32_t>(b.gamma_), 4);
    put(out, b.steps_, 8);
    for (const float v : b.bias_) put(out, std::bit_cast<uint32_t>(v), 4);
    put(out, sdk::crc32(out), 4);
    return out;
  }

  static BiasBalancer decode(std::span<const std::byte> blob) {
    if (blob.size() < 8) fail("truncated: " + std::to_string(blob.size()) + " bytes, magic and version need 8");
    if (std::memcmp(blob.data(), kMagic, 4) != 0) fail("bad magic (not a router bias state blob)");
    const auto version = static_cast<uint32_t>(get(blob, 4, 4));
    if (version != kVersion) {
      fail("unsupported version " + std::to_string(version) + " (this build reads version " +
           std::to_string(kVersion) + ")");
    }
    if (blob.size() < kHeaderSize + kCrcSize) fail("truncated: " + std::to_string(blob.size()) + " bytes");
    const auto experts = static_cast<int64_t>(get(blob, 8, 4));
    if (experts < 1 || experts > BiasBalancer::kMaxExperts) fail("experts " + std::to_string(experts) + " out of range");
    const std::size_t body = kHeaderSize + 4 * static_cast<std::size_t>(experts);
    if (blob.size() != body + kCrcSize) {
      fail("size " + std::to_string(blob.size()) + " bytes, expected " + std::to_string(body + kCrcSize) + " for " +
           std::to_string(experts) + " experts");
    }
    if (sdk::checksums_enforced() && get(blob, body, 4) != sdk::crc32(blob.first(body))) fail("checksum mismatch (the blob is corrupted)");
    const float gamma = get_f32(blob, 12);
    if (!(gamma >= 0.0f) || std::isinf(gamma)) fail("gamma is not finite and >= 0");
    BiasBalancer b(experts, gamma);
    b.steps_ = get(blob, 16, 8);
    for (std::size_t i = 0; i < b.bias_.size(); ++i) {
      b.bias_[i] = get_f32(blob, kHeaderSize + 4 * i);
      if (!std::isfinite(b.bias_[i])) fail("bias of expert " + std::to_string(i) + " is not finite");
    }
    return b;
  }
};

std::vector<std::byte> BiasBalancer::export_state() const { return BiasStateCodec::encode(*this); }

BiasBalancer BiasBalancer::import_state(std::span<const std::byte> blob) { return BiasStateCodec::decode(blob); }

}  // namespace frugal::router
