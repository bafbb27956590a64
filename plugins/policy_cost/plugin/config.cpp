#include "plugin/config.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace frugal::policy::plugin {
namespace {

using sdk::PluginError;

// A value outside its own range: OUT_OF_RANGE, the code the core gives for
// a declared bound, so a host sees one code whichever of the two refuses.
[[noreturn]] void out_of_range(const char* name, const std::string& rule, const std::string& got) {
  throw PluginError(FRUGAL_ERR_OUT_OF_RANGE, std::string("option '") + name + "' must be " + rule + ", got " + got);
}

// The shortest text that reads back as v ("0.8", "1e-09").
std::string number(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// An integer option in [lo, hi].
int64_t int_option(const sdk::Options& options, const char* name, int64_t fallback, int64_t lo,
                   int64_t hi = std::numeric_limits<int64_t>::max()) {
  const int64_t v = options.get_int(name, fallback);
  if (v < lo) out_of_range(name, ">= " + std::to_string(lo), std::to_string(v));
  if (v > hi) out_of_range(name, "<= " + std::to_string(hi), std::to_string(v));
  return v;
}

enum class Bound { at_least, above };

// A finite double option, >= lo or > lo, and <= hi.
double double_option(const sdk::Options& options, const char* name, double fallback, Bound bound, double lo,
                     double hi = std::numeric_limits<double>::max()) {
  const double v = options.get_double(name, fallback);
  const std::string rule = (bound == Bound::above ? "a finite number > " : "a finite number >= ") + number(lo);
  if (!std::isfinite(v) || (bound == Bound::above ? !(v > lo) : !(v >= lo))) out_of_range(name, rule, number(v));
  if (v > hi) out_of_range(name, "<= " + number(hi), number(v));
  return v;
}

}  // namespace

CadenceConfig read_cadence_config(const sdk::Options& options) {
  options.check_known({"heartbeat_interval_s", "full_interval_steps", "full_interval_s", "young_daly",
                       "checkpoint_cost_s", "mtbf_s", "notice_safety"});
  CadenceConfig c;
  c.heartbeat_interval_s = double_option(options, "heartbeat_interval_s", 0.0, Bound::at_least, 0.0);
  c.full_interval_steps = int_option(options, "full_interval_steps", 0, 0);
  c.full_interval_s = double_option(options, "full_interval_s", 0.0, Bound::at_least, 0.0);
  c.young_daly = options.get_bool("young_daly", false);
  c.checkpoint_cost_s = double_option(options, "checkpoint_cost_s", 60.0, Bound::above, 0.0);
  c.mtbf_s = double_option(options, "mtbf_s", 86400.0, Bound::above, 0.0);
  c.notice_safety = double_option(options, "notice_safety", 0.5, Bound::above, 0.0, 1.0);
  return c;
}

SpotPhaseConfig read_spot_phase_config(const sdk::Options& options) {
  options.check_known({"window", "sample_interval_s", "z_threshold", "max_noise", "confirmations", "min_spot_s",
                       "reserved_price", "max_price_ratio", "max_preemptions", "preemption_window_s", "cooldown_s"});
  SpotPhaseConfig c;
  c.window = int_option(options, "window", 20, 5, kMaxWindow);
  c.sample_interval_s = double_option(options, "sample_interval_s", 0.0, Bound::at_least, 0.0);
  c.z_threshold = double_option(options, "z_threshold", 2.33, Bound::above, 0.0);
  c.max_noise = double_option(options, "max_noise", 0.5, Bound::above, 0.0);
  c.confirmations = int_option(options, "confirmations", 3, 1);
  c.min_spot_s = double_option(options, "min_spot_s", 0.0, Bound::at_least, 0.0);
  c.reserved_price = double_option(options, "reserved_price", 0.0, Bound::at_least, 0.0);
  c.max_price_ratio = double_option(options, "max_price_ratio", 0.8, Bound::above, 0.0);
  c.max_preemptions = int_option(options, "max_preemptions", 3, 1, kMaxPreemptions);
  c.preemption_window_s = double_option(options, "preemption_window_s", 21600.0, Bound::above, 0.0);
  c.cooldown_s = double_option(options, "cooldown_s", 3600.0, Bound::at_least, 0.0);
  return c;
}

AutoscalerConfig read_autoscaler_config(const sdk::Options& options) {
  options.check_known({"min_nodes", "max_nodes", "window_s", "plateau_improvement", "fast_improvement",
                       "scale_factor", "cooldown_s"});
  constexpr int64_t kMaxNodes = std::numeric_limits<uint32_t>::max();  // telemetry's node count is a u32
  AutoscalerConfig c;
  c.min_nodes = int_option(options, "min_nodes", 1, 1, kMaxNodes);
  options.require("max_nodes");
  c.max_nodes = int_option(options, "max_nodes", 0, 1, kMaxNodes);
  if (c.max_nodes < c.min_nodes) {
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'max_nodes' must be >= 'min_nodes' (" +
                                                       std::to_string(c.min_nodes) + "), got " +
                                                       std::to_string(c.max_nodes));
  }
  c.window_s = double_option(options, "window_s", 3600.0, Bound::above, 0.0);
  c.plateau_improvement = double_option(options, "plateau_improvement", 0.05, Bound::at_least, 0.0);
  c.fast_improvement = double_option(options, "fast_improvement", 0.2, Bound::at_least, 0.0);
  if (!(c.fast_improvement > c.plateau_improvement)) {
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'fast_improvement' must be > 'plateau_improvement' (" +
                                                       number(c.plateau_improvement) + "), got " +
                                                       number(c.fast_improvement));
  }
  c.scale_factor = double_option(options, "scale_factor", 2.0, Bound::above, 1.0);
  c.cooldown_s = double_option(options, "cooldown_s", 2.0 * c.window_s, Bound::at_least, 0.0);
  return c;
}

EarlyStopConfig read_early_stop_config(const sdk::Options& options) {
  options.check_known({"metric", "patience", "min_delta", "mode", "min_step"});
  EarlyStopConfig c;
  c.metric = options.get_choice<Metric>("metric", "eval", {{"eval", Metric::eval}, {"train", Metric::train}});
  c.patience = int_option(options, "patience", 5, 1);
  c.min_delta = double_option(options, "min_delta", 0.0, Bound::at_least, 0.0);
  c.mode = options.get_choice<DeltaMode>("mode", "absolute",
                                         {{"absolute", DeltaMode::absolute}, {"relative", DeltaMode::relative}});
  c.min_step = int_option(options, "min_step", 0, 0);
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
