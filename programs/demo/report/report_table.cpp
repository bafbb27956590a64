// print_report_table: the report as a terminal table (figure | baseline |
// frugal | frugal vs baseline), then the preemptions, the resume check,
// the expert balance, the plans and where the files are.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report.hpp"

namespace frugal_demo {
namespace {

struct Row {
  std::string figure, baseline, frugal, comparison;
};

std::string num(std::optional<double> v, int decimals) {
  return v ? fmt::format("{:.{}f}", *v, decimals) : std::string("-");
}
std::string num(double v, int decimals) { return num(std::optional<double>(v), decimals); }
std::string percent(double fraction) { return fmt::format("{:.1f}", 100.0 * fraction); }
std::string times(std::optional<double> ratio) { return ratio ? fmt::format("x{:.2f}", *ratio) : std::string(); }
std::string signed_num(std::optional<double> v, int decimals, std::string_view unit = {}) {
  return v ? fmt::format("{:+.{}f}{}", *v, decimals, unit) : std::string();
}
std::optional<double> ratio(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || !(*b > 0.0)) return std::nullopt;
  return *a / *b;
}

std::vector<Row> rows(const Report& r) {
  const auto& b = r.baseline;
  const auto& f = r.frugal;
  const auto& s = r.savings;
  std::vector<Row> out;
  const auto both = [&](std::string figure, auto get, std::string comparison = {}) {
    out.push_back({std::move(figure), get(b), get(f), std::move(comparison)});
  };
  both("optimizer steps", [](const RunFigures& x) { return fmt::format("{}", x.steps); });
  both("processes (attempts)", [](const RunFigures& x) { return fmt::format("{}", x.attempts); });
  both("real tokens trained", [](const RunFigures& x) { return fmt::format("{}", x.real_tokens); });
  both(
      "padding waste (%)", [](const RunFigures& x) { return percent(x.padding_waste); },
      signed_num(100.0 * s.padding_waste_delta, 1, " pp"));
  both(
      "tokens/s (job clock)", [](const RunFigures& x) { return num(x.tokens_per_s, 1); }, times(s.tokens_per_s_ratio));
  if (b.tokens_per_real_s || f.tokens_per_real_s)
    both(
        "tokens/s (real time)", [](const RunFigures& x) { return num(x.tokens_per_real_s, 1); },
        times(ratio(f.tokens_per_real_s, b.tokens_per_real_s)));
  both("job clock (s)", [](const RunFigures& x) { return num(x.clock_s, 1); });
  both(fmt::format("training loss (mean of {} steps)", kLossWindow),
       [](const RunFigures& x) { return fmt::format("{:.3f}->{:.3f}", x.train_loss_start, x.train_loss_end); });
  both("eval loss, first -> final",
       [](const RunFigures& x) { return fmt::format("{}->{}", num(x.eval_loss_first, 3), num(x.eval_loss_final, 3)); });
  both(
      fmt::format("eval loss at equal time ({:.1f} s)", r.equal_time_clock_s),
      [](const RunFigures& x) { return num(x.eval_loss_at_equal_time, 3); },
      signed_num(s.eval_loss_delta_at_equal_time, 3));
  both("checkpoints (full / heartbeat)",
       [](const RunFigures& x) { return fmt::format("{} / {}", x.checkpoints_full, x.checkpoints_heartbeat); });
  both("checkpoint stall, total (s)", [](const RunFigures& x) { return num(x.stall_total_s, 2); });
  both("checkpoint stall, mean (s)", [](const RunFigures& x) { return num(x.stall_mean_s, 3); });
  both("preemptions (notices / kills)",
       [](const RunFigures& x) { return fmt::format("{} / {}", x.preempt_notices, x.kills); });
  both("work lost per preemption (steps)", [](const RunFigures& x) { return num(x.mean_steps_lost, 1); });
  both("work lost per preemption (s)", [](const RunFigures& x) { return num(x.mean_seconds_lost, 1); });
  both(
      "simulated cost ($)", [](const RunFigures& x) { return num(x.dollars.dollars, 4); },
      s.dollars_ratio ? fmt::format("x{:.2f}, saves ${:.4f}", *s.dollars_ratio, s.dollars_saved) : std::string());
  both("  spot / reserved ($)", [](const RunFigures& x) {
    return fmt::format("{:.4f} / {:.4f}", x.dollars.spot_dollars, x.dollars.reserved_dollars);
  });
  both("  productive / stall / lost ($)", [](const RunFigures& x) {
    return fmt::format("{:.4f} / {:.4f} / {:.4f}", x.dollars.productive_dollars, x.dollars.stall_dollars,
                       x.dollars.lost_dollars);
  });
  out.push_back({fmt::format("$ to reach eval loss {}", num(s.target_loss, 3)), num(s.baseline_dollars_to_target, 4),
                 s.frugal_dollars_to_target ? num(s.frugal_dollars_to_target, 4) : std::string("not reached"),
                 s.dollars_to_target_ratio ? times(s.dollars_to_target_ratio) : std::string()});
  both("expert load max/mean (worst layer)", [](const RunFigures& x) { return num(x.worst_max_over_mean, 2); });
  both("expert load CV (mean of layers)", [](const RunFigures& x) { return num(x.mean_cv, 3); });
  return out;
}

void print_preemptions(const RunFigures& f, std::FILE* out) {
  for (const auto& p : f.preemptions) {
    const std::string notice =
        p.notice_clock_s ? fmt::format("notice at {:.1f} s, ", *p.notice_clock_s) : std::string();
    const std::string end = p.signal.empty() ? std::string("ended") : fmt::format("killed ({})", p.signal);
    const std::string resumed =
        p.restored_step ? fmt::format("resumed from step {}", *p.restored_step) : std::string("not resumed");
    fmt::print(out,
               "  {} attempt {}: {}{} at {:.1f} s after step {}; {} (state of {:.1f} s): lost {} steps, {:.1f} s\n",
               f.name, p.attempt, notice, end, p.end_clock_s, p.last_step, resumed, p.checkpoint_clock_s, p.steps_lost,
               p.seconds_lost);
  }
}

void print_resume(const RunFigures& f, std::FILE* out) {
  const auto& r = f.resume;
  if (r.restored_steps.empty() && r.replayed_steps == 0) return;
  fmt::print(out,
             "  {} resume: restored step(s) {} ({}); {} replayed step(s), max |loss before - loss after| = {} ({})\n",
             f.name, fmt::join(r.restored_steps, ", "),
             r.from_checkpointed_step ? "each one checkpointed" : "NOT all checkpointed", r.replayed_steps,
             r.max_abs_loss_diff ? fmt::format("{:.3g}", *r.max_abs_loss_diff) : std::string("-"),
             r.exact ? "exact" : "NOT exact");
}

void print_experts(const RunFigures& f, std::FILE* out) {
  if (!f.experts_step) return;
  fmt::print(out, "  {} expert load at step {}:", f.name, *f.experts_step);
  for (const auto& l : f.expert_balance)
    fmt::print(out, " layer {} ({} experts) max/mean {:.2f} CV {:.3f};", l.layer, l.experts, l.max_over_mean, l.cv);
  fmt::print(out, "\n");
}

void print_plan(const RunFigures& f, std::FILE* out) {
  if (f.run_info.empty()) return;
  fmt::print(out, "  {} plan:", f.name);
  for (const auto& [key, value] : f.run_info) fmt::print(out, " {}={}", key, value);
  fmt::print(out, "\n");
}

}  // namespace

void print_report_table(const Report& report, std::FILE* out) {
  const auto table = rows(report);
  std::size_t w0 = 6, w1 = 8, w2 = 6;
  for (const auto& r : table) {
    w0 = std::max(w0, r.figure.size());
    w1 = std::max(w1, r.baseline.size());
    w2 = std::max(w2, r.frugal.size());
  }
  fmt::print(out, "{:<{}}  {:>{}}  {:>{}}  {}\n", "figure", w0, "baseline", w1, "frugal", w2, "frugal vs baseline");
  fmt::print(out, "{:-<{}}\n", "", w0 + w1 + w2 + 6 + 18);
  for (const auto& r : table) {
    std::string line =
        fmt::format("{:<{}}  {:>{}}  {:>{}}  {}", r.figure, w0, r.baseline, w1, r.frugal, w2, r.comparison);
    line.erase(line.find_last_not_of(' ') + 1);
    fmt::print(out, "{}\n", line);
  }
  fmt::print(out, "\n");
  for (const auto* f : {&report.baseline, &report.frugal}) {
    print_preemptions(*f, out);
    print_resume(*f, out);
    print_experts(*f, out);
  }
  for (const auto* f : {&report.baseline, &report.frugal}) print_plan(*f, out);
  fmt::print(out, "  files: {} and {} (steps, eval, events, experts, ledger, resume CSVs)\n",
             report.baseline.dir.string(), report.frugal.dir.string());
}

}  // namespace frugal_demo
