#include "plugin/config.hpp"

#include <limits>
#include <string>

namespace frugal::policy::plugin {
namespace {

using sdk::PluginError;

using sdk::number_text;

}  // namespace

CadenceConfig read_cadence_config(const sdk::Options& options) {
  options.check_known({"heartbeat_interval_s", "full_interval_steps", "full_interval_s", "young_daly",
                       "checkpoint_cost_s", "mtbf_s", "notice_safety"});
  CadenceConfig c;
  c.heartbeat_interval_s = options.get_double_in("heartbeat_interval_s", 0.0, 0.0);
  c.full_interval_steps = options.get_int_in("full_interval_steps", 0, 0);
  c.full_interval_s = options.get_double_in("full_interval_s", 0.0, 0.0);
  c.young_daly = options.get_bool("young_daly", false);
  c.checkpoint_cost_s = options.get_double_above("checkpoint_cost_s", 60.0, 0.0);
  c.mtbf_s = options.get_double_above("mtbf_s", 86400.0, 0.0);
  c.notice_safety = options.get_double_above("notice_safety", 0.5, 0.0, 1.0);
  return c;
}

SpotPhaseConfig read_spot_phase_config(const sdk::Options& options) {
  options.check_known({"window", "sample_interval_s", "z_threshold", "max_noise", "confirmations", "min_spot_s",
                       "reserved_price", "max_price_ratio", "max_preemptions", "preemption_window_s", "cooldown_s"});
  SpotPhaseConfig c;
  c.window = options.get_int_in("window", 20, 5, kMaxWindow);
  c.sample_interval_s = options.get_double_in("sample_interval_s", 0.0, 0.0);
  c.z_threshold = options.get_double_above("z_threshold", 2.33, 0.0);
  c.max_noise = options.get_double_above("max_noise", 0.5, 0.0);
  c.confirmations = options.get_int_in("confirmations", 3, 1);
  c.min_spot_s = options.get_double_in("min_spot_s", 0.0, 0.0);
  c.reserved_price = options.get_double_in("reserved_price", 0.0, 0.0);
  c.max_price_ratio = options.get_double_above("max_price_ratio", 0.8, 0.0);
  c.max_preemptions = options.get_int_in("max_preemptions", 3, 1, kMaxPreemptions);
  c.preemption_window_s = options.get_double_above("preemption_window_s", 21600.0, 0.0);
  c.cooldown_s = options.get_double_in("cooldown_s", 3600.0, 0.0);
  return c;
}

AutoscalerConfig read_autoscaler_config(const sdk::Options& options) {
  options.check_known(
      {"min_nodes", "max_nodes", "window_s", "plateau_improvement", "fast_improvement", "scale_factor", "cooldown_s"});
  constexpr int64_t kMaxNodes = std::numeric_limits<uint32_t>::max();  // telemetry's node count is a u32
  AutoscalerConfig c;
  c.min_nodes = options.get_int_in("min_nodes", 1, 1, kMaxNodes);
  options.require("max_nodes");
  c.max_nodes = options.get_int_in("max_nodes", 0, 1, kMaxNodes);
  if (c.max_nodes < c.min_nodes) {
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'max_nodes' must be >= 'min_nodes' (" +
                                                       std::to_string(c.min_nodes) + "), got " +
                                                       std::to_string(c.max_nodes));
  }
  c.window_s = options.get_double_above("window_s", 3600.0, 0.0);
  c.plateau_improvement = options.get_double_in("plateau_improvement", 0.05, 0.0);
  c.fast_improvement = options.get_double_in("fast_improvement", 0.2, 0.0);
  if (!(c.fast_improvement > c.plateau_improvement)) {
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'fast_improvement' must be > 'plateau_improvement' (" +
                                                       number_text(c.plateau_improvement) + "), got " +
                                                       number_text(c.fast_improvement));
  }
  c.scale_factor = options.get_double_above("scale_factor", 2.0, 1.0);
  c.cooldown_s = options.get_double_in("cooldown_s", 2.0 * c.window_s, 0.0);
  return c;
}

EarlyStopConfig read_early_stop_config(const sdk::Options& options) {
  options.check_known({"metric", "patience", "min_delta", "mode", "min_step"});
  EarlyStopConfig c;
  c.metric = options.get_choice<Metric>("metric", "eval", {{"eval", Metric::eval}, {"train", Metric::train}});
  c.patience = options.get_int_in("patience", 5, 1);
  c.min_delta = options.get_double_in("min_delta", 0.0, 0.0);
  c.mode = options.get_choice<DeltaMode>("mode", "absolute",
                                         {{"absolute", DeltaMode::absolute}, {"relative", DeltaMode::relative}});
  c.min_step = options.get_int_in("min_step", 0, 0);
  return c;
}

uint64_t fingerprint(const CadenceConfig& c) {
  sdk::StateWriter w("OPTS", 1);
  w.f64(c.heartbeat_interval_s).i64(c.full_interval_steps).f64(c.full_interval_s).flag(c.young_daly);
  w.f64(c.checkpoint_cost_s).f64(c.mtbf_s).f64(c.notice_safety);
  return sdk::xxh3(w.bytes());
}

uint64_t fingerprint(const SpotPhaseConfig& c) {
  sdk::StateWriter w("OPTS", 1);
  w.i64(c.window).f64(c.sample_interval_s).f64(c.z_threshold).f64(c.max_noise).i64(c.confirmations);
  w.f64(c.min_spot_s).f64(c.reserved_price).f64(c.max_price_ratio).i64(c.max_preemptions);
  w.f64(c.preemption_window_s).f64(c.cooldown_s);
  return sdk::xxh3(w.bytes());
}

uint64_t fingerprint(const AutoscalerConfig& c) {
  sdk::StateWriter w("OPTS", 1);
  w.i64(c.min_nodes).i64(c.max_nodes).f64(c.window_s).f64(c.plateau_improvement).f64(c.fast_improvement);
  w.f64(c.scale_factor).f64(c.cooldown_s);
  return sdk::xxh3(w.bytes());
}

uint64_t fingerprint(const EarlyStopConfig& c) {
  sdk::StateWriter w("OPTS", 1);
  w.u8(static_cast<uint8_t>(c.metric)).i64(c.patience).f64(c.min_delta).u8(static_cast<uint8_t>(c.mode));
  w.i64(c.min_step);
  return sdk::xxh3(w.bytes());
}

}  // namespace frugal::policy::plugin
