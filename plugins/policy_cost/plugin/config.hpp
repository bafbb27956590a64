// The policy_cost strategies' options, read and checked once at creation.
// A value outside its range is OUT_OF_RANGE naming the option and the value
// ("option 'window' must be >= 5, got 3"); unknown options, wrong types and
// constraints between options are INVALID_ARGUMENT. Defaults are part of
// the contract (docs/ARCHITECTURE.md, "Cost policies"); option_decls.cpp
// declares them.
#pragma once

#include <cstdint>

#include "algorithms/early_stopping.hpp"
#include "frugal/sdk/plugin_support.hpp"
#include "frugal/sdk/state_blob.hpp"

namespace frugal::policy::plugin {

struct CadenceConfig {
  double heartbeat_interval_s = 0.0;  // 0: no heartbeat timer
  int64_t full_interval_steps = 0;    // 0: no step rule
  double full_interval_s = 0.0;       // 0: no time rule
  bool young_daly = false;
  double checkpoint_cost_s = 60.0;  // prior delta
  double mtbf_s = 86400.0;          // prior MTBF
  double notice_safety = 0.5;       // a full on a notice when delta <= safety x notice
};

struct SpotPhaseConfig {
  int64_t window = 20;
  double sample_interval_s = 0.0;  // 0: every record is a sample
  double z_threshold = 2.33;
  double max_noise = 0.5;
  int64_t confirmations = 3;
  double min_spot_s = 0.0;
  double reserved_price = 0.0;  // 0: unknown, no price rule
  double max_price_ratio = 0.8;
  int64_t max_preemptions = 3;
  double preemption_window_s = 21600.0;
  double cooldown_s = 3600.0;
};

struct AutoscalerConfig {
  int64_t min_nodes = 1;
  int64_t max_nodes = 0;  // required
  double window_s = 3600.0;
  double plateau_improvement = 0.05;
  double fast_improvement = 0.2;
  double scale_factor = 2.0;
  double cooldown_s = 7200.0;  // default 2 x window_s
};

enum class Metric : uint8_t { eval = 0, train = 1 };

struct EarlyStopConfig {
  Metric metric = Metric::eval;
  int64_t patience = 5;
  double min_delta = 0.0;
  DeltaMode mode = DeltaMode::absolute;
  int64_t min_step = 0;
};

// Upper bounds that keep state and the trend test's O(window^2) scratch
// bounded.
inline constexpr int64_t kMaxWindow = 1000;
inline constexpr int64_t kMaxPreemptions = 1000;

[[nodiscard]] CadenceConfig read_cadence_config(const sdk::Options& options);
[[nodiscard]] SpotPhaseConfig read_spot_phase_config(const sdk::Options& options);
[[nodiscard]] AutoscalerConfig read_autoscaler_config(const sdk::Options& options);
[[nodiscard]] EarlyStopConfig read_early_stop_config(const sdk::Options& options);

// A checksum of every option value: a state blob carries its instance's,
// and import refuses a blob whose options differ (the contract restores
// only into an instance created with the same options).
[[nodiscard]] uint64_t fingerprint(const CadenceConfig& c);
[[nodiscard]] uint64_t fingerprint(const SpotPhaseConfig& c);
[[nodiscard]] uint64_t fingerprint(const AutoscalerConfig& c);
[[nodiscard]] uint64_t fingerprint(const EarlyStopConfig& c);

}  // namespace frugal::policy::plugin
