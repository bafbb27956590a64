#include "plugin/policy_state.hpp"

namespace frugal::policy::plugin {
namespace {

constexpr std::size_t kMaxReason = 4096;

}  // namespace

sdk::StateWriter begin_state(const StateFrame& frame, const std::string& reason) {
  sdk::StateWriter w(frame.magic, frame.version);
  w.u64(frame.options_hash).text(reason);
  return w;
}

sdk::StateReader open_state(std::span<const std::byte> blob, const StateFrame& frame, std::string& reason) {
  sdk::StateReader r(blob, frame.magic, frame.version, frame.what);
  if (r.u64("options fingerprint") != frame.options_hash)
    r.mismatched("the blob was exported by an instance with other options");
  reason = r.text("reason", kMaxReason);
  return r;
}

}  // namespace frugal::policy::plugin
