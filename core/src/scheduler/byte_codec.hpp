// Little-endian fixed-width encoding for the scheduler's state blob:
// doubles travel as their bit patterns so a restored scheduler computes
// exactly what the exporting one would have. Internal to libfrugal.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "error.hpp"

namespace frugal::scheduling {

class ByteWriter {
 public:
  void u8(uint8_t v) { bytes_.push_back(static_cast<std::byte>(v)); }
  void u32(uint32_t v) { put(v, 4); }
  void u64(uint64_t v) { put(v, 8); }
  void i64(int64_t v) { put(static_cast<uint64_t>(v), 8); }
  void f64(double v) { put(std::bit_cast<uint64_t>(v), 8); }
  void str(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    raw(std::as_bytes(std::span(s.data(), s.size())));
  }
  void raw(std::span<const std::byte> data) { bytes_.insert(bytes_.end(), data.begin(), data.end()); }

  [[nodiscard]] std::vector<std::byte>& bytes() noexcept { return bytes_; }

 private:
  void put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes_.push_back(static_cast<std::byte>(v >> (8 * i)));
  }
  std::vector<std::byte> bytes_;
};

// Reads what ByteWriter wrote; running past the end is DATA_CORRUPTED
// naming the field being read. The checksum only says the bytes are the
// ones written, not that a scheduler wrote them: the range-checked reads
// (flag, finite, at_least, i64_in, counter) refuse a crafted value naming
// the field and the value before it reaches arithmetic.
class ByteReader {
 public:
  // The largest counter(): incrementing it never overflows, and it
  // converts to double exactly.
  static constexpr int64_t kMaxCounter = int64_t{1} << 53;

  explicit ByteReader(std::span<const std::byte> data) : data_(data) {}

  uint8_t u8(const char* what) { return static_cast<uint8_t>(get(1, what)); }
  uint32_t u32(const char* what) { return static_cast<uint32_t>(get(4, what)); }
  uint64_t u64(const char* what) { return get(8, what); }
  int64_t i64(const char* what) { return static_cast<int64_t>(get(8, what)); }
  double f64(const char* what) { return std::bit_cast<double>(get(8, what)); }
  bool flag(const char* what) {
    const uint8_t v = u8(what);
    if (v > 1) out_of_range(what, v, "0 or 1");
    return v != 0;
  }
  double finite(const char* what) {
    const double v = f64(what);
    if (!std::isfinite(v)) out_of_range(what, v, "a finite number");
    return v;
  }
  double at_least(const char* what, double lo) {
    const double v = finite(what);
    if (!(v >= lo)) out_of_range(what, v, fmt::format("a finite number >= {}", lo));
    return v;
  }
  int64_t i64_in(const char* what, int64_t lo, int64_t hi) {
    const int64_t v = i64(what);
    if (v < lo || v > hi) out_of_range(what, v, fmt::format("in [{}, {}]", lo, hi));
    return v;
  }
  // A count of records or events: in [0, kMaxCounter].
  int64_t counter(const char* what) { return i64_in(what, 0, kMaxCounter); }
  std::string str(const char* what) {
    const uint32_t n = u32(what);
    const auto bytes = raw(n, what);
    return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  std::span<const std::byte> raw(size_t n, const char* what) {
    need(n, what);
    auto out = data_.subspan(offset_, n);
    offset_ += n;
    return out;
  }
  [[nodiscard]] size_t remaining() const noexcept { return data_.size() - offset_; }

 private:
  template <class T>
  [[noreturn]] static void out_of_range(const char* what, T value, std::string_view rule) {
    fail(FRUGAL_ERR_DATA_CORRUPTED, "scheduler state: {} is {}; it must be {}", what, value, rule);
  }
  void need(size_t n, const char* what) const {
    if (data_.size() - offset_ < n)
      fail(FRUGAL_ERR_DATA_CORRUPTED, "scheduler state is truncated: {} needs {} bytes at offset {}, {} left", what,
           n, offset_, data_.size() - offset_);
  }
  uint64_t get(int n, const char* what) {
    need(static_cast<size_t>(n), what);
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(data_[offset_ + static_cast<size_t>(i)]) << (8 * i);
    offset_ += static_cast<size_t>(n);
    return v;
  }
  std::span<const std::byte> data_;
  size_t offset_ = 0;
};

}  // namespace frugal::scheduling
