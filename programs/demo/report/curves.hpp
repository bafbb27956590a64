// A run's records as curves over the job clock, and the two readings the
// report takes from them: a value at a clock, and when a loss first
// reached a target.
#pragma once

#include <optional>
#include <vector>

#include "metrics.hpp"

namespace frugal_demo {

struct CurvePoint {
  double x = 0.0;  // job clock (s)
  double y = 0.0;
};
using Curve = std::vector<CurvePoint>;

// Eval loss vs clock, every eval of every attempt in clock order.
Curve eval_loss_curve(const RunMetrics& run);
// Training loss vs clock, every logged step (replays included).
Curve train_loss_curve(const RunMetrics& run);
// The ledger's dollars vs clock, starting at (0, 0).
Curve dollars_curve(const RunMetrics& run);

// y at x: linear between the points around x, the end value outside
// them. Empty curve: nullopt.
std::optional<double> value_at(const Curve& curve, double x);

// The first x where the curve reaches y <= target, linear between the
// last point above it and the first at or below it; nullopt if never.
std::optional<double> first_reach(const Curve& curve, double target);

// The run's own history: for each step, the record of the last attempt
// that logged it (a replayed step supersedes the killed attempt's), in
// step order.
std::vector<StepRecord> step_history(const RunMetrics& run);

}  // namespace frugal_demo
