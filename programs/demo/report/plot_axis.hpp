// A plot axis with round tick steps, and text made safe for SVG.
#pragma once

#include <string>
#include <vector>

namespace frugal_demo {

struct PlotAxis {
  double lo = 0.0, hi = 1.0;  // the axis' range, on ticks
  double step = 1.0;          // between ticks
  [[nodiscard]] std::vector<double> ticks() const;
  // Position of `v` along the axis, 0 at lo, 1 at hi.
  [[nodiscard]] double fraction(double v) const { return (v - lo) / (hi - lo); }
};

// About `ticks` round intervals (1, 2, 2.5 or 5 times a power of ten)
// covering [min, max].
PlotAxis make_axis(double min, double max, int ticks);

std::string tick_text(double value, double step);

}  // namespace frugal_demo
