// Curves over the job clock and readings off them.
#include "curves.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace frugal_demo {
namespace {

void sort_by_clock(Curve& curve) {
  // Stable: records logged at the same clock keep their file order.
  std::stable_sort(curve.begin(), curve.end(), [](const CurvePoint& a, const CurvePoint& b) { return a.x < b.x; });
}

}  // namespace

Curve eval_loss_curve(const RunMetrics& run) {
  Curve c;
  for (const auto& e : run.evals)
    if (std::isfinite(e.eval_loss)) c.push_back({e.clock_s, e.eval_loss});
  sort_by_clock(c);
  return c;
}

Curve train_loss_curve(const RunMetrics& run) {
  Curve c;
  for (const auto& s : run.steps)
    if (std::isfinite(s.loss)) c.push_back({s.clock_s, s.loss});
  sort_by_clock(c);
  return c;
}

Curve dollars_curve(const RunMetrics& run) {
  Curve c;
  for (const auto& s : run.steps) c.push_back({s.clock_s, s.dollars});
  sort_by_clock(c);
  if (c.empty() || c.front().x > 0.0) c.insert(c.begin(), CurvePoint{0.0, 0.0});
  return c;
}

std::optional<double> value_at(const Curve& curve, double x) {
  if (curve.empty()) return std::nullopt;
  if (x <= curve.front().x) return curve.front().y;
  if (x >= curve.back().x) return curve.back().y;
  const auto after =
      std::upper_bound(curve.begin(), curve.end(), x, [](double v, const CurvePoint& p) { return v < p.x; });
  const auto before = after - 1;
  const double span = after->x - before->x;
  if (span <= 0.0) return after->y;
  return before->y + (after->y - before->y) * (x - before->x) / span;
}

std::optional<double> first_reach(const Curve& curve, double target) {
  for (std::size_t i = 0; i < curve.size(); ++i) {
    if (!(curve[i].y <= target)) continue;
    if (i == 0) return curve[0].x;
    const auto& a = curve[i - 1];
    const auto& b = curve[i];
    return a.x + (b.x - a.x) * (a.y - target) / (a.y - b.y);
  }
  return std::nullopt;
}

std::vector<StepRecord> step_history(const RunMetrics& run) {
  std::map<std::int64_t, const StepRecord*> last;
  for (const auto& s : run.steps) last[s.step] = &s;
  std::vector<StepRecord> out;
  out.reserve(last.size());
  for (const auto& [step, record] : last) out.push_back(*record);
  return out;
}

}  // namespace frugal_demo
