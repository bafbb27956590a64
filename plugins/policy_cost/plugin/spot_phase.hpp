// spot_phase: spot capacity while the model warms up, reserved once the
// loss descends steadily, and reserved for a while when spot gets
// expensive or unreliable.
//
//   WARMUP (propose SPOT) --`confirmations` passing trend tests in a row,
//                           job clock >= min_spot_s--> STEADY (RESERVED, for good)
//   WARMUP --price or preemption spike--> SPIKE (RESERVED)
//   SPIKE  --no spike for cooldown_s--> WARMUP;  SPIKE --passing tests as above--> STEADY
//
// Loss samples (job time, training loss) are taken every record, or every
// sample_interval_s (records flagged FRUGAL_TELEMETRY_NO_LOSS are no samples); the last `window` of them form the trend
// test (algorithms/trend_test.hpp), run once every `window` new samples and never after STEADY. The windows tested are
// disjoint on purpose: tests on windows that share window - 1 samples are nearly the same test, so "three passes in a
// row" on sliding windows let a flat, noisy loss leave spot by chance in about a third of 500-record runs; on disjoint
// windows each pass is fresh evidence (a 1%-level test three times: about one in a million). Samples from before a
// restart stay: the loss is the model's, which resumed from a checkpoint.
//
// Spikes: a price spike is a record on spot capacity whose price per
// node-hour is above max_price_ratio x reserved_price (spot prices are
// only seen while on spot; reserved_price 0 turns the rule off). A
// preemption spike holds while the last max_preemptions restarts
// (FRUGAL_TELEMETRY_RESTARTED records) all lie within preemption_window_s.
//
// next_due_s: the end of the spike cooldown, or the next sample time when
// sample_interval_s > 0, whichever comes first; 0 in STEADY.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/loss_window.hpp"
#include "frugal/sdk/plugin_support.hpp"
#include "frugal/telemetry.h"
#include "plugin/config.hpp"
#include "plugin/policy_state.hpp"

namespace frugal::policy::plugin {

class SpotPhase : public StatefulPolicy<SpotPhase> {
 public:
  enum class Phase : uint8_t { warmup = 0, steady = 1, spike = 2 };

  explicit SpotPhase(const SpotPhaseConfig& config);
  explicit SpotPhase(const sdk::Options& options) : SpotPhase(read_spot_phase_config(options)) {}

  void decide(const frugal_telemetry& telemetry, frugal_decision& proposal);

  [[nodiscard]] Phase phase() const noexcept { return phase_; }
  // Trend tests run so far (the O(window^2) part runs only in some of them).
  [[nodiscard]] int64_t tests_run() const noexcept { return tests_run_; }

 private:
  void take_sample(double now, double loss);
  [[nodiscard]] bool spike_seen(const frugal_telemetry& t);
  [[nodiscard]] double next_due() const;
  friend class StatefulPolicy<SpotPhase>;
  [[nodiscard]] StateFrame frame() const noexcept { return {"PCSP", "spot_phase state", options_hash_}; }
  void save_fields(sdk::StateWriter& out) const;
  void load_fields(sdk::StateReader& in);

  SpotPhaseConfig config_;
  uint64_t options_hash_;
  std::string warmup_reason_;  // from the options; not state

  Phase phase_ = Phase::warmup;
  LossWindow window_;
  bool has_sample_ = false;
  double last_sample_s_ = 0.0;
  int64_t passes_ = 0;         // passing tests in a row
  int64_t fresh_samples_ = 0;  // samples since the last test
  int64_t tests_run_ = 0;
  double last_z_ = 0.0;           // of the last passing test
  double last_noise_ = 0.0;       // likewise
  std::vector<double> restarts_;  // times of the last max_preemptions restarts, oldest first
  bool has_spike_ = false;
  double last_spike_s_ = 0.0;

  // Scratch for the test; not state.
  std::vector<double> times_, losses_, scratch_;
};

}  // namespace frugal::policy::plugin
