// The state blob every policy_cost strategy exports (sdk/state_blob.hpp):
// the strategy's magic, its format version, the fingerprint of the options
// the instance was created with, and the reason its last proposal points
// at; the strategy's own fields follow. The reason travels because a
// restored instance must answer later records byte for byte like the
// exporting one, explanation included, and reasons are rewritten only when
// the numbers behind them change (formatting every record would cost more
// than the decision).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "frugal/sdk/state_blob.hpp"

namespace frugal::policy::plugin {

// 2: the options fingerprint and the trailing checksum are XXH3-64 (1 had
// CRC-32s); a version 1 blob is refused as another version.
inline constexpr uint32_t kStateVersion = 2;

struct StateFrame {
  const char* magic;                 // 4 characters
  const char* what;                  // "<strategy> state", for messages
  uint64_t options_hash;             // fingerprint() of the instance's options
  uint32_t version = kStateVersion;  // the strategy's format version
};

// A writer with the frame written; append the fields, then finish().
[[nodiscard]] sdk::StateWriter begin_state(const StateFrame& frame, const std::string& reason);

// Checks the header, checksum and options of `blob` and reads the reason;
// the fields follow in the returned reader.
[[nodiscard]] sdk::StateReader open_state(std::span<const std::byte> blob, const StateFrame& frame,
                                          std::string& reason);

// export_state / import_state for a strategy class Derived with
//   StateFrame frame() const;
//   void save_fields(sdk::StateWriter&) const;
//   void load_fields(sdk::StateReader&);   // reads and checks every field
// Import parses into a copy and replaces *this only when the whole blob
// was read and checked, so a bad blob leaves the instance as it was.
template <class Derived>
class StatefulPolicy {
 public:
  [[nodiscard]] std::vector<std::byte> export_state() const {
    const auto& self = static_cast<const Derived&>(*this);
    sdk::StateWriter w = begin_state(self.frame(), reason_);
    self.save_fields(w);
    return std::move(w).finish();
  }

  void import_state(std::span<const std::byte> blob) {
    Derived parsed = static_cast<const Derived&>(*this);
    sdk::StateReader r = open_state(blob, parsed.frame(), parsed.reason_);
    parsed.load_fields(r);
    r.finish();
    static_cast<Derived&>(*this) = std::move(parsed);
  }

 protected:
  // What the last proposal's reason points at; valid until the next call.
  std::string reason_;
};

}  // namespace frugal::policy::plugin
