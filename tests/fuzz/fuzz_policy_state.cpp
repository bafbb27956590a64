// libFuzzer target: policy_cost's state imports (import_state of
// checkpoint_cadence, spot_phase, plateau_autoscaler, early_stop), in
// process. The first byte picks the strategy; the rest is the blob. A blob
// is either refused with a PluginError or accepted, and an accepted state
// must then take ordinary and extreme (but valid) telemetry without
// undefined behaviour or an endless loop. A record may itself be refused
// with a PluginError (spot_phase refuses a clock older than the imported
// state's newest time): that is an answer, and the next record follows.
// The fuzzing build does not enforce the blobs' checksum (sdk/checksum.hpp,
// checksums_enforced), so mutated blobs reach the field checks;
// fuzz_policy_state_seeds writes exported blobs as seeds.
//
// Build: clang++ -fsanitize=fuzzer,address,undefined against the
// policy_cost_strategies library and the sdk headers.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>

#include "policy_state_targets.hpp"

namespace {

template <class Policy>
void exercise(Policy& policy, std::span<const std::byte> blob) {
  try {
    policy.import_state(blob);
  } catch (const frugal::sdk::PluginError&) {
    return;
  }
  const double times[] = {0.0, 1.0, 1e6, 1e15, 1e300, 1.7e308};
  int64_t step = 0;
  for (const double t : times) {
    for (uint32_t flags : {0u, unsigned{FRUGAL_TELEMETRY_EVAL_LOSS}, unsigned{FRUGAL_TELEMETRY_RESTARTED},
                           unsigned{FRUGAL_TELEMETRY_NO_LOSS}}) {
      frugal_decision d{};
      d.struct_size = sizeof(d);
      ++step;
      try {
        policy.decide(frugal::fuzz::policy_record(t, step, 1.0 / static_cast<double>(step), flags), d);
      } catch (const frugal::sdk::PluginError&) {
        // A refused record is an answer; the state must still export.
      }
    }
  }
  (void)policy.export_state();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto blob = std::as_bytes(std::span(data + 1, size - 1));
  frugal::fuzz::with_policy(data[0], [&](auto& policy) { exercise(policy, blob); });
  return 0;
}
