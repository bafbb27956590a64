// The plot: for every plan a bar of its mean cost and one of its mean wall
// time, each with a whisker from p10 to p90 over the runs. Plain SVG 1.1
// written by hand (no dependency), valid XML, readable without scripts.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report.hpp"
#include "xml_text.hpp"

namespace frugal::simulate {
namespace {

constexpr double kWidth = 980.0;
constexpr double kRow = 30.0;
constexpr double kTop = 64.0;
constexpr double kBottom = 48.0;
constexpr double kGap = 40.0;  // between the two panels

// A round axis step giving about `ticks` intervals up to `max`.
double nice_step(double max, int ticks) {
  if (!(max > 0.0)) return 1.0;
  const double raw = max / ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10.0 * magnitude;
}

std::string tick_label(double v) {
  if (v >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (v >= 1e3) return fmt::format("{:g}k", v / 1e3);
  return fmt::format("{:g}", v);
}

struct Panel {
  double x = 0.0, width = 0.0;
  const char* title = "";
  double axis_max = 1.0, step = 1.0;
};

Panel make_panel(double x, double width, const char* title, double data_max) {
  Panel p{x, width, title, 1.0, 1.0};
  p.step = nice_step(data_max, 5);
  p.axis_max = std::max(p.step, std::ceil(data_max / p.step) * p.step);
  return p;
}

std::string panel_frame(const Panel& p, double plot_height) {
  std::string out = fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"13\" font-weight=\"bold\">{}</text>\n",
                                p.x, kTop - 12.0, p.title);
  for (double v = 0.0; v <= p.axis_max + p.step / 2; v += p.step) {
    const double x = p.x + p.width * v / p.axis_max;
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#dddddd\"/>\n", x,
                       kTop, kTop + plot_height);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n", x,
                       kTop + plot_height + 16.0, tick_label(v));
  }
  return out;
}

std::string bar(const Panel& p, double y, const Stat& s, const char* colour, const std::string& label) {
  const auto scale = [&](double v) { return p.x + p.width * std::clamp(v / p.axis_max, 0.0, 1.0); };
  const double h = kRow * 0.6;
  std::string out = fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"><title>{}</title></rect>\n", p.x,
      y - h / 2, scale(s.mean) - p.x, h, colour, xml::xml_text(label));
  out += fmt::format(
      "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#222222\" stroke-width=\"1.5\"/>\n",
      scale(s.p10), y, scale(s.p90), y);
  for (const double v : {s.p10, s.p90})
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#222222\" stroke-width=\"1.5\"/>\n",
        scale(v), y - h / 3, y + h / 3);
  return out;
}

}  // namespace

std::string format_svg(const Report& report) {
  size_t longest = 4;
  for (const auto& p : report.plans) longest = std::max(longest, p.plan->name.size());
  const double names = std::min(260.0, 20.0 + 7.0 * static_cast<double>(longest));
  const double plot_height = kRow * static_cast<double>(std::max<size_t>(1, report.plans.size()));
  const double height = kTop + plot_height + kBottom;
  const double panel_width = (kWidth - names - kGap - 30.0) / 2.0;
  double cost_max = 0.0, wall_max = 0.0;
  for (const auto& p : report.plans) {
    cost_max = std::max({cost_max, p.cost.p90, p.cost.mean});
    wall_max = std::max({wall_max, p.wall_h.p90, p.wall_h.mean});
  }
  const Panel cost = make_panel(names, panel_width, "Cost ($): mean, p10-p90", cost_max);
  const Panel wall = make_panel(names + panel_width + kGap, panel_width, "Wall time (h): mean, p10-p90", wall_max);

  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "viewBox=\"0 0 {0:.0f} {1:.0f}\" font-family=\"sans-serif\">\n"
      "<title>frugal simulate: {2}</title>\n"
      "<desc>Cost and wall time of each plan over {3} runs (seed {4}); bars are means, whiskers p10 to p90.</desc>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
      "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{2}: {3} runs per plan{5}</text>\n",
      kWidth, height, xml::xml_text(report.job->name), report.runs, report.seed,
      xml::xml_text(report.trace_description.empty() ? "" : ", " + report.trace_description));
  out += panel_frame(cost, plot_height) + panel_frame(wall, plot_height);
  for (size_t i = 0; i < report.plans.size(); ++i) {
    const auto& p = report.plans[i];
    const double y = kTop + kRow * (static_cast<double>(i) + 0.5);
    const char* colour = p.plan->resource == FRUGAL_RESOURCE_RESERVED ? "#3b6fb6" : "#e08a2c";
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" text-anchor=\"end\">{}</text>\n", names - 8.0,
                       y + 4.0, xml::xml_text(p.plan->name));
    out += bar(cost, y, p.cost, colour,
               fmt::format("{}: ${:.0f} (p10 {:.0f}, p90 {:.0f})", p.plan->name, p.cost.mean, p.cost.p10, p.cost.p90));
    out += bar(
        wall, y, p.wall_h, colour,
        fmt::format("{}: {:.1f} h (p10 {:.1f}, p90 {:.1f})", p.plan->name, p.wall_h.mean, p.wall_h.p10, p.wall_h.p90));
  }
  out += fmt::format(
      "<text x=\"10\" y=\"{:.1f}\" font-size=\"11\" fill=\"#555555\">orange: starts on spot; blue: starts on "
      "reserved</text>\n",
      height - 10.0);
  return out + "</svg>\n";
}

}  // namespace frugal::simulate
