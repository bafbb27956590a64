// compute_report: both runs' figures, then frugal against the baseline.
#include <algorithm>

#include "curves.hpp"
#include "report.hpp"

namespace frugal_demo {
namespace {

std::optional<double> ratio(double numerator, double denominator) {
  if (!(denominator > 0.0)) return std::nullopt;
  return numerator / denominator;
}

}  // namespace

Report compute_report(const RunMetrics& baseline, const RunMetrics& frugal) {
  Report r;
  r.baseline = compute_run_figures(baseline, "baseline");
  r.frugal = compute_run_figures(frugal, "frugal");
  const auto base_eval = eval_loss_curve(baseline);
  const auto frugal_eval = eval_loss_curve(frugal);

  // Equal wall time: where both runs have been running, i.e. up to the
  // shorter run's end.
  r.equal_time_clock_s = std::min(r.baseline.clock_s, r.frugal.clock_s);
  r.baseline.eval_loss_at_equal_time = value_at(base_eval, r.equal_time_clock_s);
  r.frugal.eval_loss_at_equal_time = value_at(frugal_eval, r.equal_time_clock_s);

  auto& s = r.savings;
  s.dollars_ratio = ratio(r.frugal.dollars.dollars, r.baseline.dollars.dollars);
  s.dollars_saved = r.baseline.dollars.dollars - r.frugal.dollars.dollars;
  s.tokens_per_s_ratio = ratio(r.frugal.tokens_per_s, r.baseline.tokens_per_s);
  s.padding_waste_delta = r.frugal.padding_waste - r.baseline.padding_waste;
  if (r.baseline.eval_loss_at_equal_time && r.frugal.eval_loss_at_equal_time)
    s.eval_loss_delta_at_equal_time = *r.frugal.eval_loss_at_equal_time - *r.baseline.eval_loss_at_equal_time;

  // What reaching the baseline's final quality cost each run.
  s.target_loss = r.baseline.eval_loss_final;
  if (s.target_loss) {
    s.baseline_dollars_to_target = value_at(dollars_curve(baseline), *r.baseline.eval_clock_final_s);
    s.frugal_clock_to_target_s = first_reach(frugal_eval, *s.target_loss);
    if (s.frugal_clock_to_target_s)
      s.frugal_dollars_to_target = value_at(dollars_curve(frugal), *s.frugal_clock_to_target_s);
    if (s.frugal_dollars_to_target && s.baseline_dollars_to_target)
      s.dollars_to_target_ratio = ratio(*s.frugal_dollars_to_target, *s.baseline_dollars_to_target);
  }
  return r;
}

}  // namespace frugal_demo
