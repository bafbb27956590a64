// Axis ranges and ticks for the report's plot.
#include "plot_axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace frugal_demo {

std::vector<double> PlotAxis::ticks() const {
  std::vector<double> out;
  // Counting steps, not adding them, keeps rounding error out of the labels.
  const int n = static_cast<int>(std::lround((hi - lo) / step));
  for (int i = 0; i <= n; ++i) out.push_back(lo + step * i);
  return out;
}

PlotAxis make_axis(double min, double max, int ticks) {
  if (!std::isfinite(min) || !std::isfinite(max)) min = max = 0.0;
  if (max < min) std::swap(min, max);
  if (max - min < 1e-12) {
    // A flat series still needs a visible range around it.
    const double pad = std::max(std::fabs(max) * 0.05, 0.5);
    min -= pad;
    max += pad;
  }
  const double raw = (max - min) / ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10.0 * magnitude;
  for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * magnitude) {
      step = m * magnitude;
      break;
    }
  PlotAxis a;
  a.step = step;
  a.lo = std::floor(min / step + 1e-9) * step;
  a.hi = std::ceil(max / step - 1e-9) * step;
  if (a.hi <= a.lo) a.hi = a.lo + step;
  return a;
}

std::string tick_text(double value, double step) {
  if (std::fabs(value) < step * 1e-6) value = 0.0;  // no "-0"
  // As many decimals as the step has (2.5 -> 1, 0.25 -> 2).
  int decimals = 0;
  for (double scaled = step; decimals < 8 && std::fabs(scaled - std::round(scaled)) > 1e-6 * scaled; scaled *= 10.0)
    ++decimals;
  return fmt::format("{:.{}f}", value, decimals);
}

}  // namespace frugal_demo
