// frugal/sdk/state_blob.hpp — versioned, self-checking state blobs for a
// strategy's export_state / import_state. Header-only.
//
// Layout: a 4-character magic naming the strategy, a u32 format version,
// the fields in the order written (every integer little-endian whatever the
// host's byte order, floats and doubles as their exact IEEE bits, strings
// as a u32 length and the bytes), and a trailing u64 XXH3-64 (the one
// checksum of frugal's formats, checksum.hpp) of everything before it.
//
//   std::vector<std::byte> export_state() const {
//     sdk::StateWriter w("PCES", 1);
//     w.f64(best_).i64(stale_);
//     return std::move(w).finish();
//   }
//   void import_state(std::span<const std::byte> blob) {
//     sdk::StateReader r(blob, "PCES", 1, "early_stop");
//     Tracker parsed;                  // parse into a temporary ...
//     parsed.best = r.f64("best");
//     r.finish();
//     *this = parsed;                  // ... and only then replace the state
//   }
//
// StateReader checks, in this order, so that the error names the real
// problem: the header fits, the magic (another strategy's blob is
// INVALID_ARGUMENT, not a checksum failure), the version (a newer format is
// INVALID_ARGUMENT saying so), the checksum (DATA_CORRUPTED), then each field as
// it is read (DATA_CORRUPTED naming the field) and finally that nothing is
// left over. Every message starts with the reader's `what`.
//
// libfrugal's own objects (the run scheduler, the loss scaler) write their
// blobs with this codec too, and read them with HeaderRules::core_object:
// their C API promises that any damaged blob, another kind's included, is
// DATA_CORRUPTED and only an intact newer format UNSUPPORTED, so the
// checksum is checked before the version there.
//
// A valid checksum only says the bytes are the ones written, not that a
// writer made them: read every double with finite() / at_least() /
// above() (floats with finite_f32() / at_least_f32()) and every integer
// with i64_in() / counter(), so a crafted blob
// is refused naming the field and its value before a NaN, an infinity or
// an out-of-range count reaches arithmetic that assumes otherwise.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frugal/sdk/checksum.hpp"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::sdk {

// How a StateReader reports a header that is not the one it reads.
enum class HeaderRules {
  // A strategy's blob: another magic or version is INVALID_ARGUMENT (the
  // caller handed the wrong blob), checked before the checksum.
  strategy,
  // A core object's blob: another magic is DATA_CORRUPTED, the checksum is
  // checked next, and only then the version (UNSUPPORTED), so a flipped
  // byte anywhere is DATA_CORRUPTED.
  core_object,
};

class StateWriter {
 public:
  // magic: exactly 4 characters.
  StateWriter(std::string_view magic, uint32_t version) {
    if (magic.size() != 4)
      throw PluginError(FRUGAL_ERR_INTERNAL, "state blob magic must be 4 characters, got '" + std::string(magic) + "'");
    for (const char c : magic) bytes_.push_back(static_cast<std::byte>(c));
    u32(version);
  }

  StateWriter& u8(uint8_t v) { return put(v, 1); }
  StateWriter& u32(uint32_t v) { return put(v, 4); }
  StateWriter& u64(uint64_t v) { return put(v, 8); }
  StateWriter& i64(int64_t v) { return put(static_cast<uint64_t>(v), 8); }
  StateWriter& f64(double v) { return put(std::bit_cast<uint64_t>(v), 8); }
  StateWriter& f32(float v) { return put(std::bit_cast<uint32_t>(v), 4); }
  StateWriter& flag(bool v) { return put(v ? 1U : 0U, 1); }
  StateWriter& text(std::string_view s) {
    if (s.size() > UINT32_MAX) throw PluginError(FRUGAL_ERR_INTERNAL, "state blob string over 4 GiB");
    u32(static_cast<uint32_t>(s.size()));
    for (const char c : s) bytes_.push_back(static_cast<std::byte>(c));
    return *this;
  }
  // Bytes as they are, e.g. a blob nested in this one after its size.
  StateWriter& raw(std::span<const std::byte> data) {
    bytes_.insert(bytes_.end(), data.begin(), data.end());
    return *this;
  }

  // What has been written so far (e.g. to fingerprint a section).
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return bytes_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_.size(); }

  // Appends the checksum and hands the blob over.
  [[nodiscard]] std::vector<std::byte> finish() && {
    const uint64_t sum = xxh3(bytes_);
    u64(sum);
    return std::move(bytes_);
  }

 private:
  StateWriter& put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes_.push_back(static_cast<std::byte>(v >> (8 * i)));
    return *this;
  }

  std::vector<std::byte> bytes_;
};

class StateReader {
 public:
  static constexpr std::size_t kHeaderSize = 8;    // magic and version
  static constexpr std::size_t kChecksumSize = 8;  // the trailing XXH3-64

  // Checks the header and the checksum; throws PluginError (see the top).
  // `what` names the state in messages, e.g. "spot_phase state".
  StateReader(std::span<const std::byte> blob, std::string_view magic, uint32_t version, std::string what,
              HeaderRules rules = HeaderRules::strategy)
      : what_(std::move(what)) {
    if (blob.size() < kHeaderSize + kChecksumSize) {
      corrupted("truncated: " + std::to_string(blob.size()) + " bytes, a blob has at least " +
                std::to_string(kHeaderSize + kChecksumSize));
    }
    const bool core_object = rules == HeaderRules::core_object;
    const std::string got(reinterpret_cast<const char*>(blob.data()), 4);
    if (got != magic) {
      throw PluginError(core_object ? FRUGAL_ERR_DATA_CORRUPTED : FRUGAL_ERR_INVALID_ARGUMENT,
                        what_ + ": magic '" + printable(got) + "' is not '" + std::string(magic) +
                            (core_object ? "' (a blob of another kind)" : "' (a blob of another strategy)"));
    }
    blob_ = blob;
    at_ = 4;
    const uint32_t found = u32("version");
    const std::size_t body = blob.size() - kChecksumSize;
    const bool intact = !checksums_enforced() || get(body, 8) == xxh3(blob.first(body));
    if (core_object && !intact) corrupted("checksum mismatch (the blob is corrupted)");
    if (found != version) {
      throw PluginError(core_object ? FRUGAL_ERR_UNSUPPORTED : FRUGAL_ERR_INVALID_ARGUMENT,
                        what_ + ": format version " + std::to_string(found) + ", this build reads version " +
                            std::to_string(version));
    }
    if (!intact) corrupted("checksum mismatch (the blob is corrupted)");
    blob_ = blob.first(body);
  }

  uint8_t u8(const char* field) { return static_cast<uint8_t>(take(field, 1)); }
  uint32_t u32(const char* field) { return static_cast<uint32_t>(take(field, 4)); }
  uint64_t u64(const char* field) { return take(field, 8); }
  int64_t i64(const char* field) { return static_cast<int64_t>(take(field, 8)); }
  double f64(const char* field) { return std::bit_cast<double>(take(field, 8)); }
  float f32(const char* field) { return std::bit_cast<float>(static_cast<uint32_t>(take(field, 4))); }
  // The largest counter(): incrementing it never overflows, and it
  // converts to double exactly.
  static constexpr int64_t kMaxCounter = int64_t{1} << 53;

  // A double that must be finite.
  double finite(const char* field) { return checked_finite(field, f64(field)); }
  // A finite double >= lo.
  double at_least(const char* field, double lo) { return checked_at_least(field, f64(field), lo); }
  // A finite double > lo.
  double above(const char* field, double lo) {
    const double v = finite(field);
    if (!(v > lo)) out_of_range(field, number_text(v), "a finite number > " + number_text(lo));
    return v;
  }
  // A float that must be finite.
  float finite_f32(const char* field) { return checked_finite(field, f32(field)); }
  // A finite float >= lo.
  float at_least_f32(const char* field, float lo) { return checked_at_least(field, f32(field), lo); }
  // An integer in [lo, hi].
  int64_t i64_in(const char* field, int64_t lo, int64_t hi) {
    const int64_t v = i64(field);
    if (v < lo || v > hi)
      out_of_range(field, std::to_string(v), "in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
  }
  // A finite double in [lo, hi].
  double f64_in(const char* field, double lo, double hi) {
    const double v = finite(field);
    if (!(v >= lo && v <= hi))
      out_of_range(field, number_text(v), "in [" + number_text(lo) + ", " + number_text(hi) + "]");
    return v;
  }
  // A count of records or events: in [0, kMaxCounter].
  int64_t counter(const char* field) { return i64_in(field, 0, kMaxCounter); }

  bool flag(const char* field) {
    const uint8_t v = u8(field);
    if (v > 1) corrupted("field '" + std::string(field) + "' is " + std::to_string(v) + ", not a flag (0 or 1)");
    return v != 0;
  }
  std::string text(const char* field, std::size_t max_size) {
    const uint32_t n = u32(field);
    if (n > max_size || n > blob_.size() - at_)
      corrupted("field '" + std::string(field) + "' claims " + std::to_string(n) + " bytes");
    std::string s(reinterpret_cast<const char*>(blob_.data() + at_), n);
    at_ += n;
    return s;
  }

  // A count of later items, each at least item_bytes long: at most `max`
  // and no more than the bytes left can hold.
  uint64_t count(const char* field, uint64_t max, std::size_t item_bytes) {
    const uint64_t n = u64(field);
    if (n > max || (item_bytes > 0 && n > (blob_.size() - at_) / item_bytes))
      corrupted("field '" + std::string(field) + "' is " + std::to_string(n) + ", out of range");
    return n;
  }

  // The next n bytes as they are (e.g. a nested blob whose size was read).
  std::span<const std::byte> raw(const char* field, std::size_t n) {
    if (n > blob_.size() - at_)
      corrupted("field '" + std::string(field) + "' claims " + std::to_string(n) + " bytes, " +
                std::to_string(blob_.size() - at_) + " left");
    const auto out = blob_.subspan(at_, n);
    at_ += n;
    return out;
  }

  // Bytes before the checksum not read yet.
  [[nodiscard]] std::size_t remaining() const noexcept { return blob_.size() - at_; }

  // Throws unless every byte before the checksum was read.
  void finish() const {
    if (at_ != blob_.size()) corrupted(std::to_string(blob_.size() - at_) + " unread bytes after the last field");
  }

  // DATA_CORRUPTED: "<what>: <message>", for checks of field values.
  [[noreturn]] void corrupted(const std::string& message) const {
    throw PluginError(FRUGAL_ERR_DATA_CORRUPTED, what_ + ": " + message);
  }

  // INVALID_ARGUMENT: "<what>: <message>", e.g. a blob exported with other options.
  [[noreturn]] void mismatched(const std::string& message) const {
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, what_ + ": " + message);
  }

 private:
  [[nodiscard]] uint64_t get(std::size_t at, int n) const {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= std::to_integer<uint64_t>(blob_[at + static_cast<std::size_t>(i)]) << (8 * i);
    return v;
  }

  uint64_t take(const char* field, int n) {
    const auto size = static_cast<std::size_t>(n);
    if (blob_.size() - at_ < size)
      corrupted("truncated at field '" + std::string(field) + "' (offset " + std::to_string(at_) + ")");
    const uint64_t v = get(at_, n);
    at_ += size;
    return v;
  }

  [[noreturn]] void out_of_range(const char* field, const std::string& value, const std::string& rule) const {
    corrupted("field '" + std::string(field) + "' is " + value + "; it must be " + rule);
  }

  template <typename Float>
  Float checked_finite(const char* field, Float v) const {
    if (!std::isfinite(v)) out_of_range(field, number_text(v), "a finite number");
    return v;
  }
  template <typename Float>
  Float checked_at_least(const char* field, Float v, Float lo) const {
    checked_finite(field, v);
    if (!(v >= lo)) out_of_range(field, number_text(v), "a finite number >= " + number_text(lo));
    return v;
  }

  static std::string printable(const std::string& s) {
    std::string out;
    for (const char c : s) out += (c >= 0x20 && c < 0x7F) ? c : '?';
    return out;
  }

  std::string what_;
  std::span<const std::byte> blob_;
  std::size_t at_ = 0;
};

}  // namespace frugal::sdk
