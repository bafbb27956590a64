// The policy_cost strategies that fuzz_policy_state drives, and the
// configuration each runs with: one place for the fuzzer and for its seed
// generator, so the seeds carry the fingerprint the fuzzer's instances
// expect.
#pragma once

#include <cstddef>
#include <cstdint>

#include "plugin/checkpoint_cadence.hpp"
#include "plugin/early_stop.hpp"
#include "plugin/plateau_autoscaler.hpp"
#include "plugin/spot_phase.hpp"

namespace frugal::fuzz {

// How many strategies with_policy picks from.
inline constexpr std::size_t policy_count = 4;

// Builds strategy `which % policy_count` in its fuzzing configuration and
// calls use(policy) with it.
template <class Use>
void with_policy(std::size_t which, Use&& use) {
  namespace pp = frugal::policy::plugin;
  switch (which % policy_count) {
    case 0: {
      pp::CadenceConfig c;
      c.heartbeat_interval_s = 600;
      c.full_interval_steps = 10;
      c.full_interval_s = 3600;
      c.young_daly = true;
      pp::CheckpointCadence policy{c};
      use(policy);
      break;
    }
    case 1: {
      pp::SpotPhase policy{pp::SpotPhaseConfig{}};
      use(policy);
      break;
    }
    case 2: {
      pp::AutoscalerConfig c;
      c.max_nodes = 64;
      pp::PlateauAutoscaler policy{c};
      use(policy);
      break;
    }
    default: {
      pp::EarlyStopConfig c;
      c.metric = pp::Metric::train;
      pp::EarlyStop policy{c};
      use(policy);
      break;
    }
  }
}

// A telemetry record at job time wall_s, with the given flags.
inline frugal_telemetry policy_record(double wall_s, int64_t step, double loss, uint32_t flags) {
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

}  // namespace frugal::fuzz
