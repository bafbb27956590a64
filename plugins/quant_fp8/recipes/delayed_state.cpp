// The delayed-scaling state blob, version 1. Every field little-endian,
// whatever the host's byte order, so a checkpoint moves between machines:
//
//   offset  size  field
//        0     4  magic "FQDS" (Frugal Quantizer Delayed Scaling)
//        4     4  u32 version = 1
//        8     4  u32 history length H, 1 .. kMaxHistory
//       12     1  u8 reduction: 0 max, 1 most_recent
//       13     3  reserved, zero
//       16     4  i32 margin, kMinMargin .. kMaxMargin
//       20     4  f32 fp8_max, finite, >= 4
//       24     4  f32 scale, in [kMinScale, kMaxScale]
//       28     4  f32 scale_inv, == 1.0f / scale exactly
//       32     4  u32 position of the most recent entry in the ring, < H
//       36     8  u64 steps (update() calls)
//       44     8  u64 non-finite steps, <= steps
//       52    4H  f32 ring entries in storage order, each finite and >= +0
//   52 + 4H    4  u32 CRC-32 of bytes [0, 52 + 4H)
//
// Checks run in that order (magic and version first, so a newer blob is
// reported as such rather than as a bad checksum), and the first failure
// throws StateError naming the field.
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "frugal/sdk/crc32.hpp"
#include "recipes/delayed_scaling.hpp"
#include "recipes/scale_from_amax.hpp"
#include "recipes/state_error.hpp"

namespace frugal::quant::recipes {
namespace {

constexpr char kMagic[4] = {'F', 'Q', 'D', 'S'};
constexpr uint32_t kVersion = 1;
constexpr std::size_t kHeaderSize = 52;
constexpr std::size_t kCrcSize = 4;

class Writer {
 public:
  explicit Writer(std::vector<std::byte>& out) : out_(out) {}
  void u8(uint8_t v) { out_.push_back(std::byte{v}); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) u8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) u8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void f32(float v) { u32(std::bit_cast<uint32_t>(v)); }

 private:
  std::vector<std::byte>& out_;
};

class Reader {
 public:
  explicit Reader(std::span<const std::byte> in) : in_(in) {}
  uint8_t u8() { return std::to_integer<uint8_t>(in_[at_++]); }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{u8()} << (8 * i);
    return v;
  }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t{u8()} << (8 * i);
    return v;
  }
  float f32() { return std::bit_cast<float>(u32()); }

 private:
  std::span<const std::byte> in_;
  std::size_t at_ = 0;
};

[[noreturn]] void fail(const std::string& what) { throw StateError("delayed scaling state: " + what); }

std::string float_text(float v) {
  // Hex float text: exact, and shows NaN / Inf plainly.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", double{v});
  return buf;
}

}  // namespace

struct DelayedStateCodec {
  static std::vector<std::byte> encode(const DelayedScaling& s) {
    std::vector<std::byte> out;
    out.reserve(kHeaderSize + 4 * s.ring_.size() + kCrcSize);
    Writer w(out);
    for (const char c : kMagic) w.u8(static_cast<uint8_t>(c));
    w.u32(kVersion);
    w.u32(static_cast<uint32_t>(s.ring_.size()));
    w.u8(static_cast<uint8_t>(s.config_.reduction));
    w.u8(0);
    w.u8(0);
    w.u8(0);
    w.u32(static_cast<uint32_t>(s.config_.margin));
    w.f32(s.config_.fp8_max);
    w.f32(s.scale_);
    w.f32(s.scale_inv_);
    w.u32(static_cast<uint32_t>(s.pos_));
    w.u64(s.steps_);
    w.u64(s.nonfinite_steps_);
    for (const float v : s.ring_) w.f32(v);
    w.u32(sdk::crc32(out));
    return out;
  }

  static DelayedScaling decode(std::span<const std::byte> blob) {
    if (blob.size() < 8) fail("truncated: " + std::to_string(blob.size()) + " bytes, magic and version need 8");
    if (std::memcmp(blob.data(), kMagic, 4) != 0) fail("bad magic (not a delayed scaling state blob)");
    Reader r(blob.subspan(4));
    const uint32_t version = r.u32();
    if (version != kVersion) {
      fail("unsupported version " + std::to_string(version) + " (this build reads version " +
           std::to_string(kVersion) + ")");
    }
    if (blob.size() < kHeaderSize + kCrcSize) {
      fail("truncated: " + std::to_string(blob.size()) + " bytes, the version 1 header and checksum need " +
           std::to_string(kHeaderSize + kCrcSize));
    }
    const uint32_t history = r.u32();
    if (history < 1 || history > kMaxHistory) {
      fail("history length " + std::to_string(history) + " out of range [1, " + std::to_string(kMaxHistory) + "]");
    }
    const std::size_t expected = kHeaderSize + 4 * std::size_t{history} + kCrcSize;
    if (blob.size() != expected) {
      fail("size " + std::to_string(blob.size()) + " bytes, expected " + std::to_string(expected) +
           " for history length " + std::to_string(history));
    }
    const std::size_t body = expected - kCrcSize;
    Reader crc_reader(blob.subspan(body));
    const uint32_t stored_crc = crc_reader.u32();
    const uint32_t actual_crc = sdk::crc32(blob.first(body));
    if (sdk::checksums_enforced() && stored_crc != actual_crc) fail("checksum mismatch (the blob is corrupted)");

    DelayedScalingConfig config;
    config.history = history;
    const uint8_t reduction = r.u8();
    if (reduction > 1) fail("reduction code " + std::to_string(reduction) + " unknown (0 max, 1 most_recent)");
    config.reduction = static_cast<AmaxReduction>(reduction);
    for (int i = 0; i < 3; ++i) {
      if (r.u8() != 0) fail("reserved bytes are not zero");
    }
    config.margin = static_cast<int32_t>(r.u32());
    if (config.margin < kMinMargin || config.margin > kMaxMargin) {
      fail("margin " + std::to_string(config.margin) + " out of range [" + std::to_string(kMinMargin) + ", " +
           std::to_string(kMaxMargin) + "]");
    }
    config.fp8_max = r.f32();
    if (!(config.fp8_max >= 4.0f) || std::isinf(config.fp8_max)) {
      fail("fp8_max " + float_text(config.fp8_max) + " is not finite and >= 4");
    }
    DelayedScaling s(config);
    s.scale_ = r.f32();
    if (!(s.scale_ >= kMinScale && s.scale_ <= kMaxScale)) {
      fail("scale " + float_text(s.scale_) + " out of range [2^-126, 2^126]");
    }
    s.scale_inv_ = r.f32();
    if (s.scale_inv_ != 1.0f / s.scale_) {
      fail("scale_inv " + float_text(s.scale_inv_) + " is not 1 / scale (" + float_text(1.0f / s.scale_) + ")");
    }
    const uint32_t pos = r.u32();
    if (pos >= history) fail("position " + std::to_string(pos) + " not below history length " + std::to_string(history));
    s.pos_ = pos;
    s.steps_ = r.u64();
    s.nonfinite_steps_ = r.u64();
    if (s.nonfinite_steps_ > s.steps_) {
      fail("non-finite steps " + std::to_string(s.nonfinite_steps_) + " exceed steps " + std::to_string(s.steps_));
    }
    for (std::size_t i = 0; i < history; ++i) {
      const float v = r.f32();
      // +0 only: update() never stores -0.0, NaN, Inf or a negative value.
      if (!(v >= 0.0f) || std::isinf(v) || std::signbit(v)) {
        fail("history entry " + std::to_string(i) + " is " + float_text(v) + ", not a finite amax >= 0");
      }
      s.ring_[i] = v;
    }
    return s;
  }
};

std::vector<std::byte> DelayedScaling::export_state() const { return DelayedStateCodec::encode(*this); }

DelayedScaling DelayedScaling::import_state(std::span<const std::byte> blob) { return DelayedStateCodec::decode(blob); }

}  // namespace frugal::quant::recipes
