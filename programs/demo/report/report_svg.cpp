// write_report_svg: eval loss (training loss lightly) vs job clock for both
// runs, with the frugal run's checkpoints, preemptions and restarts marked
// on its curve; below it, cumulative dollars vs job clock. Plain SVG 1.1
// written by hand, self-contained (no scripts, fonts or links), valid XML.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "curves.hpp"
#include "plot_axis.hpp"
#include "report.hpp"
#include "xml_text.hpp"

namespace frugal_demo {
namespace {

constexpr double kWidth = 900.0;
constexpr double kLeft = 70.0, kRight = 20.0;
constexpr double kLegendTop = 46.0, kLegendRow = 18.0;
constexpr double kLossTop = 104.0, kLossHeight = 300.0;
constexpr double kCostTop = kLossTop + kLossHeight + 60.0, kCostHeight = 170.0;
constexpr double kHeight = kCostTop + kCostHeight + 64.0;
constexpr const char* kBaselineColour = "#3b6fb6";
constexpr const char* kFrugalColour = "#e0702c";
constexpr const char* kPreemptColour = "#c62828";
constexpr const char* kRestartColour = "#2e7d32";

struct Panel {
  double top = 0.0, height = 0.0;
  PlotAxis x, y;
  [[nodiscard]] double px(double v) const { return kLeft + (kWidth - kLeft - kRight) * x.fraction(v); }
  [[nodiscard]] double py(double v) const { return top + height * (1.0 - y.fraction(v)); }
};

std::string frame(const Panel& p, std::string_view title, std::string_view y_label) {
  const double right = kWidth - kRight, bottom = p.top + p.height;
  std::string out = fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"13\" font-weight=\"bold\">{}</text>\n",
                                kLeft, p.top - 10.0, frugal::xml::xml_text(title));
  for (const double t : p.x.ticks()) {
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#e4e4e4\"/>\n",
                       p.px(t), p.top, bottom);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n", p.px(t),
                       bottom + 15.0, tick_text(t, p.x.step));
  }
  for (const double t : p.y.ticks()) {
    out += fmt::format("<line x1=\"{1:.1f}\" y1=\"{0:.1f}\" x2=\"{2:.1f}\" y2=\"{0:.1f}\" stroke=\"#e4e4e4\"/>\n",
                       p.py(t), kLeft, right);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n", kLeft - 6.0,
                       p.py(t) + 4.0, tick_text(t, p.y.step));
  }
  out += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#888888\"/>\n", kLeft,
      p.top, right - kLeft, p.height);
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"middle\">job clock (s)</text>\n",
                     (kLeft + right) / 2.0, bottom + 32.0);
  out += fmt::format(
      "<text x=\"16\" y=\"{0:.1f}\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 16 "
      "{0:.1f})\">{1}</text>\n",
      p.top + p.height / 2.0, frugal::xml::xml_text(y_label));
  return out;
}

std::string polyline(const Panel& p, const Curve& c, const char* colour, double width, double opacity,
                     std::string_view name) {
  if (c.empty()) return {};
  std::string points;
  for (const auto& pt : c) points += fmt::format("{:.1f},{:.1f} ", p.px(pt.x), p.py(std::clamp(pt.y, p.y.lo, p.y.hi)));
  points.pop_back();
  return fmt::format(
      "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"{:.1f}\" stroke-opacity=\"{:.2f}\" points=\"{}\">"
      "<title>{}</title></polyline>\n",
      colour, width, opacity, points, frugal::xml::xml_text(name));
}

// The frugal run's checkpoints, kills and restarts, marked on its curve.
std::string markers(const Panel& loss, const Panel& cost, const RunMetrics& run, const Curve& eval,
                    const Curve& train) {
  std::string out;
  // On the eval curve within its clock range; before the first eval (or
  // without evals) on the training curve, which starts at the first step.
  const auto y_at = [&](double clock) {
    const bool on_eval = !eval.empty() && clock >= eval.front().x;
    const double v = value_at(on_eval ? eval : train, clock).value_or(loss.y.lo);
    return loss.py(std::clamp(v, loss.y.lo, loss.y.hi));
  };
  for (const auto& s : run.steps) {
    if (s.checkpoint.empty()) continue;
    const bool full = s.checkpoint == "full";
    out += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\" stroke=\"{}\"><title>{} checkpoint, step "
        "{}</title></circle>\n",
        loss.px(s.clock_s), y_at(s.clock_s), full ? 3.5 : 2.5, full ? kFrugalColour : "#ffffff", kFrugalColour,
        s.checkpoint, s.step);
  }
  for (const auto& e : run.events) {
    const double x = loss.px(e.clock_s), y = y_at(e.clock_s);
    if (e.event == "killed") {
      out += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" stroke-dasharray=\"4 "
          "3\"/>\n",
          x, loss.top, cost.top + cost.height, kPreemptColour);
      out += fmt::format(
          "<path d=\"M{0:.1f} {1:.1f} l8 8 m0 -8 l-8 8\" stroke=\"{2}\" stroke-width=\"2.5\"><title>preempted: attempt "
          "{3} "
          "killed ({4}) after step {5}</title></path>\n",
          x - 4.0, y - 4.0, kPreemptColour, e.attempt, frugal::xml::xml_text(e.detail), e.step);
    } else if (e.event == "resume") {
      out += fmt::format(
          "<path d=\"M{:.1f} {:.1f} l5 9 l-10 0 z\" fill=\"{}\"><title>restart: attempt {} resumed from step {}"
          "</title></path>\n",
          x, y - 6.0, kRestartColour, e.attempt, e.step);
    }
  }
  return out;
}

std::string legend() {
  struct Item {
    std::string swatch;
    const char* label;
  };
  const auto line = [](const char* colour, double opacity) {
    return fmt::format(
        "<line x1=\"0\" y1=\"0\" x2=\"18\" y2=\"0\" stroke=\"{}\" stroke-width=\"2\" stroke-opacity=\"{:.2f}\"/>",
        colour, opacity);
  };
  const Item items[] = {
      {line(kBaselineColour, 1.0), "baseline eval loss"},
      {line(kFrugalColour, 1.0), "frugal eval loss"},
      {line("#777777", 0.35), "training loss (light)"},
      {fmt::format("<circle cx=\"9\" cy=\"0\" r=\"3.5\" fill=\"{0}\" stroke=\"{0}\"/>", kFrugalColour),
       "full checkpoint"},
      {fmt::format("<circle cx=\"9\" cy=\"0\" r=\"2.5\" fill=\"#ffffff\" stroke=\"{}\"/>", kFrugalColour), "heartbeat"},
      {fmt::format("<path d=\"M5 -4 l8 8 m0 -8 l-8 8\" stroke=\"{}\" stroke-width=\"2.5\"/>", kPreemptColour),
       "preemption (kill)"},
      {fmt::format("<path d=\"M9 -6 l5 9 l-10 0 z\" fill=\"{}\"/>", kRestartColour), "restart (resume)"},
  };
  std::string out = "<g id=\"legend\" font-size=\"11\">\n";
  double x = kLeft, y = kLegendTop;
  for (const auto& item : items) {
    // ~6.5 px a character at 11 px sans-serif: wrap before the right edge.
    const double width = 34.0 + 6.5 * static_cast<double>(std::string_view(item.label).size());
    if (x + width > kWidth - kRight) {
      x = kLeft;
      y += kLegendRow;
    }
    out += fmt::format("<g transform=\"translate({:.1f} {:.1f})\">{}<text x=\"24\" y=\"4\">{}</text></g>\n", x, y,
                       item.swatch, item.label);
    x += width;
  }
  return out + "</g>\n";
}

double max_x(const std::vector<const Curve*>& curves) {
  double m = 0.0;
  for (const auto* c : curves)
    if (!c->empty()) m = std::max(m, c->back().x);
  return m;
}

}  // namespace

void write_report_svg(const RunMetrics& baseline, const RunMetrics& frugal, const Report& report,
                      const std::filesystem::path& file) {
  const Curve base_eval = eval_loss_curve(baseline), frugal_eval = eval_loss_curve(frugal);
  const Curve base_train = train_loss_curve(baseline), frugal_train = train_loss_curve(frugal);
  const Curve base_cost = dollars_curve(baseline), frugal_cost = dollars_curve(frugal);

  const double clock_max = std::max(
      {report.baseline.clock_s, report.frugal.clock_s, max_x({&base_eval, &frugal_eval, &base_train, &frugal_train})});
  double loss_lo = std::numeric_limits<double>::infinity();
  double loss_hi = -std::numeric_limits<double>::infinity();
  for (const auto* c : {&base_eval, &frugal_eval, &base_train, &frugal_train})
    for (const auto& p : *c) {
      loss_lo = std::min(loss_lo, p.y);
      loss_hi = std::max(loss_hi, p.y);
    }
  double cost_hi = 0.0;
  for (const auto* c : {&base_cost, &frugal_cost})
    for (const auto& p : *c) cost_hi = std::max(cost_hi, p.y);

  const PlotAxis x_axis = make_axis(0.0, clock_max, 8);
  const Panel loss{kLossTop, kLossHeight, x_axis, make_axis(loss_lo, loss_hi, 6)};
  const Panel cost{kCostTop, kCostHeight, x_axis, make_axis(0.0, cost_hi, 4)};

  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "viewBox=\"0 0 {0:.0f} {1:.0f}\" font-family=\"sans-serif\">\n"
      "<title>frugal demo: baseline vs frugal</title>\n"
      "<desc>Eval loss and cumulative simulated dollars vs job clock for the baseline and the frugal run.</desc>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
      "<text x=\"10\" y=\"24\" font-size=\"16\" font-weight=\"bold\">frugal demo: baseline vs frugal</text>\n",
      kWidth, kHeight);
  out += legend();
  out += frame(loss, "Loss vs job clock", "loss");
  out += polyline(loss, base_train, kBaselineColour, 1.0, 0.3, "baseline training loss");
  out += polyline(loss, frugal_train, kFrugalColour, 1.0, 0.3, "frugal training loss");
  out += polyline(loss, base_eval, kBaselineColour, 2.2, 1.0, "baseline eval loss");
  out += polyline(loss, frugal_eval, kFrugalColour, 2.2, 1.0, "frugal eval loss");
  out += frame(cost, "Cumulative simulated cost vs job clock", "dollars");
  out += polyline(cost, base_cost, kBaselineColour, 2.0, 1.0, "baseline dollars");
  out += polyline(cost, frugal_cost, kFrugalColour, 2.0, 1.0, "frugal dollars");
  out += markers(loss, cost, frugal, frugal_eval, frugal_train);
  out += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" fill=\"#555555\">blue: baseline (padded, dense, fp32, "
      "reserved); "
      "orange: frugal (packed, MoE, FP8 QAT, spot then reserved)</text>\n",
      kLeft, kHeight - 10.0);
  out += "</svg>\n";

  std::ofstream f(file, std::ios::binary | std::ios::trunc);
  f << out;
  f.flush();
  if (!f) throw std::runtime_error(fmt::format("{}: cannot write the plot", file.string()));
}

}  // namespace frugal_demo
