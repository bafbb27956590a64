#include "distributions.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

namespace frugal::bench::packer {

namespace {

constexpr Distribution kAll[] = {Distribution::uniform, Distribution::lognormal, Distribution::bimodal,
                                 Distribution::chat};

// The transforms below use only the engine's raw bits (std::mt19937_64 is
// specified exactly by the standard) and not std::*_distribution, whose
// algorithms differ between standard libraries: the lengths, and so the
// published tables, are reproducible with any compiler.
class Draw {
 public:
  explicit Draw(uint64_t seed) : engine_(seed) {}

  // Uniform in [0, 1), 53 random bits.
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1]: safe to take the log of.
  double unit_open() { return 1.0 - unit(); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  double exponential(double mean) { return -mean * std::log(unit_open()); }
  // Box-Muller; one of the pair is discarded, which keeps the stream simple.
  double normal() {
    const double r = std::sqrt(-2.0 * std::log(unit_open()));
    return r * std::cos(2.0 * std::numbers::pi * unit());
  }
  double lognormal(double median, double sigma) { return median * std::exp(sigma * normal()); }

 private:
  std::mt19937_64 engine_;
};

double draw_one(Distribution d, Draw& draw, double max_len) {
  switch (d) {
    case Distribution::uniform: return std::floor(draw.uniform(1.0, max_len + 1.0));
    case Distribution::lognormal: return std::round(draw.lognormal(max_len / 8.0, 1.0));
    case Distribution::bimodal:
      if (draw.unit() < 0.8) return std::round(draw.uniform(max_len / 32.0, max_len / 8.0));
      return std::round(draw.uniform(max_len / 2.0, max_len));
    case Distribution::chat:
      // Chat turns: mostly short, with a lognormal minority of long documents.
      if (draw.unit() < 0.85) return std::ceil(draw.exponential(max_len / 48.0));
      return std::round(draw.lognormal(max_len / 8.0, 1.0));
  }
  return 1.0;
}

}  // namespace

std::span<const Distribution> all_distributions() noexcept { return kAll; }

std::string_view distribution_name(Distribution d) noexcept {
  switch (d) {
    case Distribution::uniform: return "uniform";
    case Distribution::lognormal: return "lognormal";
    case Distribution::bimodal: return "bimodal";
    case Distribution::chat: return "chat";
  }
  return "unknown";
}

std::string_view distribution_definition(Distribution d) noexcept {
  switch (d) {
    case Distribution::uniform: return "uniform integer in [1, L]";
    case Distribution::lognormal: return "lognormal, median L/8, sigma 1 (long tail, about 2 % reach L)";
    case Distribution::bimodal: return "80 % uniform in [L/32, L/8], 20 % uniform in [L/2, L]";
    case Distribution::chat:
      return "85 % exponential with mean L/48 (rounded up), 15 % lognormal with median L/8, sigma 1";
  }
  return "";
}

double Sample::mean() const noexcept {
  if (lengths.empty()) return 0.0;
  long double sum = 0;
  for (const int64_t len : lengths) sum += static_cast<long double>(len);
  return static_cast<double>(sum / static_cast<long double>(lengths.size()));
}

Sample generate(Distribution d, int64_t n, int64_t max_len) {
  // A fixed seed per (distribution, max_len, n), so each table cell has its own
  // reproducible input and changing one size does not shift the others.
  const uint64_t seed = 0x9e3779b97f4a7c15ULL * (static_cast<uint64_t>(d) + 1) ^
                        (static_cast<uint64_t>(max_len) << 20) ^ static_cast<uint64_t>(n);
  Draw draw(seed);
  Sample s;
  s.lengths.reserve(static_cast<std::size_t>(n));
  const auto top = static_cast<double>(max_len);
  for (int64_t i = 0; i < n; ++i) {
    const double x = draw_one(d, draw, top);
    // Clip, never redraw: the tail mass lands on max_len (and the odd zero on
    // 1), which is what a truncating data loader does too.
    const double clipped = std::clamp(x, 1.0, top);
    if (clipped != x) ++s.clipped;
    s.lengths.push_back(static_cast<int64_t>(clipped));
  }
  return s;
}

}  // namespace frugal::bench::packer
