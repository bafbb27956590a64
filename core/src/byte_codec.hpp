// Little-endian fixed-width encoding for the core's own state blobs (the
// run scheduler's, the loss scaler's): doubles travel as their bit patterns
// so a restored object computes exactly what the exporting one would have.
// A sealed blob is framed the same way for every object: a u32 magic, a u32
// format, the fields, and an XXH3-64 of everything before it. Internal to
// libfrugal.
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

#include "hash.hpp"
#include "error.hpp"

namespace frugal {

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
// ones written, not that the object wrote them: the range-checked reads
// (flag, finite, at_least, f64_in, i64_in, counter) refuse a crafted value
// naming the field and the value before it reaches arithmetic. `subject`
// ("scheduler state") starts every message; it must outlive the reader.
class ByteReader {
 public:
  // The largest counter(): incrementing it never overflows, and it
  // converts to double exactly.
  static constexpr int64_t kMaxCounter = int64_t{1} << 53;

  ByteReader(std::span<const std::byte> data, std::string_view subject) : data_(data), subject_(subject) {}

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
  double f64_in(const char* what, double lo, double hi) {
    const double v = finite(what);
    if (!(v >= lo && v <= hi)) out_of_range(what, v, fmt::format("in [{}, {}]", lo, hi));
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
  [[nodiscard]] std::string_view subject() const noexcept { return subject_; }

  // DATA_CORRUPTED unless every byte was read.
  void finish() const {
    if (remaining() != 0)
      fail(FRUGAL_ERR_DATA_CORRUPTED, "{} has {} unexpected bytes before its checksum", subject_, remaining());
  }

 private:
  template <class T>
  [[noreturn]] void out_of_range(const char* what, T value, std::string_view rule) const {
    fail(FRUGAL_ERR_DATA_CORRUPTED, "{}: {} is {}; it must be {}", subject_, what, value, rule);
  }
  void need(size_t n, const char* what) const {
    if (data_.size() - offset_ < n)
      fail(FRUGAL_ERR_DATA_CORRUPTED, "{} is truncated: {} needs {} bytes at offset {}, {} left", subject_, what, n,
           offset_, data_.size() - offset_);
  }
  uint64_t get(int n, const char* what) {
    need(static_cast<size_t>(n), what);
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(data_[offset_ + static_cast<size_t>(i)]) << (8 * i);
    offset_ += static_cast<size_t>(n);
    return v;
  }
  std::span<const std::byte> data_;
  std::string_view subject_;
  size_t offset_ = 0;
};

// The frame of one kind of sealed blob. `magic` is `magic_text` (4
// characters) read as a little-endian u32; `subject` names it in messages.
struct BlobFrame {
  uint32_t magic;
  const char* magic_text;
  uint32_t format;
  const char* subject;
};

// A writer that has written the frame's magic and format.
inline ByteWriter begin_sealed(const BlobFrame& frame) {
  ByteWriter out;
  out.u32(frame.magic);
  out.u32(frame.format);
  return out;
}

// Appends the checksum; the blob is then out.bytes().
inline void seal(ByteWriter& out) {
  std::vector<std::byte>& bytes = out.bytes();
  out.u64(xxh3(bytes.data(), bytes.size()));
}

// A reader over a sealed blob's fields, past its magic and format, checked
// in the order that names the real problem: the size, the magic (another
// kind's blob), the checksum, the format (a newer one is UNSUPPORTED).
inline ByteReader open_sealed(std::span<const std::byte> blob, const BlobFrame& frame) {
  constexpr size_t kChecksumBytes = 8;
  if (blob.size() < 8 + kChecksumBytes)
    fail(FRUGAL_ERR_DATA_CORRUPTED, "{} is {} bytes, too short to be one", frame.subject, blob.size());
  const auto body = blob.first(blob.size() - kChecksumBytes);
  ByteReader tail(blob.last(kChecksumBytes), frame.subject);
  ByteReader in(body, frame.subject);
  if (in.u32("magic") != frame.magic)
    fail(FRUGAL_ERR_DATA_CORRUPTED, "not a {} (its first bytes are not \"{}\")", frame.subject, frame.magic_text);
  if (checksums_enforced() && tail.u64("checksum") != xxh3(body.data(), body.size()))
    fail(FRUGAL_ERR_DATA_CORRUPTED, "{} checksum mismatch (the blob is corrupted)", frame.subject);
  const uint32_t format = in.u32("format");
  if (format != frame.format)
    fail(FRUGAL_ERR_UNSUPPORTED, "{} format {} (this frugal reads format {})", frame.subject, format, frame.format);
  return in;
}

// Copies a sealed blob out with the export_state contract: *size always,
// the bytes when `buffer` is not NULL and holds them, OUT_OF_RANGE when it
// is not NULL and too small. True when it copied.
inline bool copy_out(const std::vector<std::byte>& blob, void* buffer, size_t capacity, size_t* size,
                     std::string_view subject) {
  *size = blob.size();
  if (buffer == nullptr) return false;
  if (capacity < blob.size())
    fail(FRUGAL_ERR_OUT_OF_RANGE, "the {} takes {} bytes; the buffer holds {}", subject, blob.size(), capacity);
  std::memcpy(buffer, blob.data(), blob.size());
  return true;
}

}  // namespace frugal
