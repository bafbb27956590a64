// write_report_json: every figure of the report, machine-readable.
#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

#include "json_out.hpp"
#include "report.hpp"

namespace frugal_demo {
namespace {

void dollars(JsonOut& j, const LedgerTotals& d, bool from_ledger) {
  j.begin_object("dollars");
  j.boolean("from_ledger", from_ledger);
  j.number("total", d.dollars);
  j.number("spot", d.spot_dollars);
  j.number("reserved", d.reserved_dollars);
  j.number("productive", d.productive_dollars);
  j.number("stall", d.stall_dollars);
  j.number("lost", d.lost_dollars);
  j.number("wall_s", d.wall_s);
  j.number("productive_s", d.productive_s);
  j.number("stall_s", d.stall_s);
  j.number("lost_s", d.lost_s);
  j.integer("restarts", d.restarts);
  j.integer("checkpoints_full", d.checkpoints_full);
  j.integer("checkpoints_heartbeat", d.checkpoints_heartbeat);
  j.end_object();
}

void preemptions(JsonOut& j, const RunFigures& f) {
  j.integer("preempt_notices", f.preempt_notices);
  j.integer("kills", f.kills);
  j.integer("restarts", f.restarts);
  j.integer("emergency_saves", f.emergency_saves);
  j.begin_array("preemptions");
  for (const auto& p : f.preemptions) {
    j.begin_object();
    j.integer("attempt", p.attempt);
    j.number("notice_clock_s", p.notice_clock_s);
    j.number("end_clock_s", p.end_clock_s);
    j.string("signal", p.signal);
    j.integer("last_step", p.last_step);
    j.integer("checkpoint_step", p.checkpoint_step);
    j.number("checkpoint_clock_s", p.checkpoint_clock_s);
    j.integer("steps_lost", p.steps_lost);
    j.number("seconds_lost", p.seconds_lost);
    j.integer("restored_step", p.restored_step);
    j.end_object();
  }
  j.end_array();
  j.number("mean_steps_lost", f.mean_steps_lost);
  j.number("mean_seconds_lost", f.mean_seconds_lost);
}

void resume(JsonOut& j, const ResumeCheck& r) {
  j.begin_object("resume");
  j.integer("replayed_steps", static_cast<std::int64_t>(r.replayed_steps));
  j.number("max_abs_loss_diff", r.max_abs_loss_diff);
  j.begin_array("restored_steps");
  for (const auto s : r.restored_steps) j.integer("", s);
  j.end_array();
  j.boolean("exact", r.exact);
  j.boolean("from_checkpointed_step", r.from_checkpointed_step);
  j.end_object();
}

void experts(JsonOut& j, const RunFigures& f) {
  j.begin_object("expert_balance");
  j.integer("step", f.experts_step);
  j.number("worst_max_over_mean", f.worst_max_over_mean);
  j.number("mean_cv", f.mean_cv);
  j.begin_array("layers");
  for (const auto& l : f.expert_balance) {
    j.begin_object();
    j.integer("layer", l.layer);
    j.integer("experts", l.experts);
    j.number("max_over_mean", l.max_over_mean);
    j.number("cv", l.cv);
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

void run(JsonOut& j, const RunFigures& f) {
  j.begin_object(f.name);
  j.string("dir", f.dir.string());
  j.integer("steps", f.steps);
  j.integer("attempts", f.attempts);
  j.integer("real_tokens", f.real_tokens);
  j.integer("slots", f.slots);
  j.integer("processed_tokens", f.processed_tokens);
  j.number("padding_waste", f.padding_waste);
  j.number("clock_s", f.clock_s);
  j.number("tokens_per_s", f.tokens_per_s);
  j.number("time_scale", f.time_scale);
  j.number("tokens_per_real_s", f.tokens_per_real_s);
  j.integer("loss_window_steps", static_cast<std::int64_t>(kLossWindow));
  j.number("train_loss_start", f.train_loss_start);
  j.number("train_loss_end", f.train_loss_end);
  j.number("eval_loss_first", f.eval_loss_first);
  j.number("eval_loss_final", f.eval_loss_final);
  j.number("eval_clock_final_s", f.eval_clock_final_s);
  j.number("eval_loss_at_equal_time", f.eval_loss_at_equal_time);
  j.integer("checkpoints_full", f.checkpoints_full);
  j.integer("checkpoints_heartbeat", f.checkpoints_heartbeat);
  j.number("stall_total_s", f.stall_total_s);
  j.number("stall_mean_s", f.stall_mean_s);
  preemptions(j, f);
  resume(j, f.resume);
  dollars(j, f.dollars, f.has_ledger);
  experts(j, f);
  j.begin_object("plan");
  for (const auto& [key, value] : f.run_info) j.string(key, value);
  j.end_object();
  j.end_object();
}

void savings(JsonOut& j, const Savings& s) {
  j.begin_object("frugal_vs_baseline");
  j.number("dollars_ratio", s.dollars_ratio);
  j.number("dollars_saved", s.dollars_saved);
  j.number("tokens_per_s_ratio", s.tokens_per_s_ratio);
  j.number("padding_waste_delta", s.padding_waste_delta);
  j.number("eval_loss_delta_at_equal_time", s.eval_loss_delta_at_equal_time);
  j.number("target_loss", s.target_loss);
  j.number("frugal_clock_to_target_s", s.frugal_clock_to_target_s);
  j.number("frugal_dollars_to_target", s.frugal_dollars_to_target);
  j.number("baseline_dollars_to_target", s.baseline_dollars_to_target);
  j.number("dollars_to_target_ratio", s.dollars_to_target_ratio);
  j.end_object();
}

}  // namespace

void write_report_json(const Report& report, const std::filesystem::path& file) {
  JsonOut j;
  j.begin_object();
  j.number("equal_time_clock_s", report.equal_time_clock_s);
  run(j, report.baseline);
  run(j, report.frugal);
  savings(j, report.savings);
  j.end_object();
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << j.text() << '\n';
  out.flush();
  if (!out) throw std::runtime_error(fmt::format("{}: cannot write the report", file.string()));
}

}  // namespace frugal_demo
