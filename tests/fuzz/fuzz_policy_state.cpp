// libFuzzer target: policy_cost's state imports (import_state of
// checkpoint_cadence, spot_phase, plateau_autoscaler, early_stop), in
// process. The first byte picks the strategy; the rest is the blob. A blob
// is either refused with a PluginError or accepted, and an accepted state
// must then take ordinary and extreme (but valid) telemetry without
// undefined behaviour or an endless loop. The fuzzing build does not
// enforce the blobs' checksum (sdk/checksum.hpp, checksums_enforced), so
// mutated blobs reach the field checks; seed the corpus with exported blobs.
//
// Build: clang++ -fsanitize=fuzzer,address,undefined against the
// policy_cost_strategies library and the sdk headers.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>

#include "plugin/checkpoint_cadence.hpp"
#include "plugin/early_stop.hpp"
#include "plugin/plateau_autoscaler.hpp"
#include "plugin/spot_phase.hpp"

namespace {

namespace pp = frugal::policy::plugin;

frugal_telemetry record(double wall_s, int64_t step, double loss, uint32_t flags) {
  frugal_telemetry t{};
  t.struct_size = sizeof(t);
  t.flags = flags;
  t.nodes = 3;
  t.step = step;
  t.tokens = step;
  t.loss = loss;
  t.eval_loss = loss;
  t.wall_time_s = wall_s;
  t.price_per_node_hour = 2.0;
  t.resource = FRUGAL_RESOURCE_SPOT;
  return t;
}

template <class Policy, class Config>
void exercise(const Config& config, std::span<const std::byte> blob) {
  Policy policy{config};
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
      policy.decide(record(t, step, 1.0 / static_cast<double>(step), flags), d);
    }
  }
  (void)policy.export_state();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto blob = std::as_bytes(std::span(data + 1, size - 1));
  switch (data[0] % 4) {
    case 0: {
      pp::CadenceConfig c;
      c.heartbeat_interval_s = 600;
      c.full_interval_steps = 10;
      c.full_interval_s = 3600;
      c.young_daly = true;
      exercise<pp::CheckpointCadence>(c, blob);
      break;
    }
    case 1: exercise<pp::SpotPhase>(pp::SpotPhaseConfig{}, blob); break;
    case 2: {
      pp::AutoscalerConfig c;
      c.max_nodes = 64;
      exercise<pp::PlateauAutoscaler>(c, blob);
      break;
    }
    default: {
      pp::EarlyStopConfig c;
      c.metric = pp::Metric::train;
      exercise<pp::EarlyStop>(c, blob);
      break;
    }
  }
  return 0;
}
