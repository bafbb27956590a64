// write_report_json: every figure of the report, machine-readable.
#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

#include "json_text.hpp"
#include "report.hpp"

namespace frugal_demo {
namespace {

using frugal::json::Json;

// A figure the run's files could not give is null.
template <typename T>
Json or_null(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json dollars(const LedgerTotals& d, bool from_ledger) {
  return {{"from_ledger", from_ledger},
          {"total", d.dollars},
          {"spot", d.spot_dollars},
          {"reserved", d.reserved_dollars},
          {"productive", d.productive_dollars},
          {"stall", d.stall_dollars},
          {"lost", d.lost_dollars},
          {"wall_s", d.wall_s},
          {"productive_s", d.productive_s},
          {"stall_s", d.stall_s},
          {"lost_s", d.lost_s},
          {"restarts", d.restarts},
          {"checkpoints_full", d.checkpoints_full},
          {"checkpoints_heartbeat", d.checkpoints_heartbeat}};
}

Json preemption(const Preemption& p) {
  return {{"attempt", p.attempt},
          {"notice_clock_s", or_null(p.notice_clock_s)},
          {"end_clock_s", p.end_clock_s},
          {"signal", p.signal},
          {"last_step", p.last_step},
          {"checkpoint_step", p.checkpoint_step},
          {"checkpoint_clock_s", p.checkpoint_clock_s},
          {"steps_lost", p.steps_lost},
          {"seconds_lost", p.seconds_lost},
          {"restored_step", or_null(p.restored_step)}};
}

Json resume(const ResumeCheck& r) {
  return {{"replayed_steps", r.replayed_steps},
          {"max_abs_loss_diff", or_null(r.max_abs_loss_diff)},
          {"restored_steps", r.restored_steps},
          {"exact", r.exact},
          {"from_checkpointed_step", r.from_checkpointed_step}};
}

Json experts(const RunFigures& f) {
  Json layers = Json::array();
  for (const auto& l : f.expert_balance)
    layers.push_back({{"layer", l.layer}, {"experts", l.experts}, {"max_over_mean", l.max_over_mean}, {"cv", l.cv}});
  return {{"step", or_null(f.experts_step)},
          {"worst_max_over_mean", or_null(f.worst_max_over_mean)},
          {"mean_cv", or_null(f.mean_cv)},
          {"layers", std::move(layers)}};
}

Json run(const RunFigures& f) {
  Json preemptions = Json::array();
  for (const auto& p : f.preemptions) preemptions.push_back(preemption(p));
  Json plan = Json::object();
  for (const auto& [key, value] : f.run_info) plan[key] = value;
  return {{"dir", f.dir.string()},
          {"steps", f.steps},
          {"attempts", f.attempts},
          {"real_tokens", f.real_tokens},
          {"slots", f.slots},
          {"processed_tokens", f.processed_tokens},
          {"padding_waste", f.padding_waste},
          {"clock_s", f.clock_s},
          {"tokens_per_s", f.tokens_per_s},
          {"time_scale", or_null(f.time_scale)},
          {"tokens_per_real_s", or_null(f.tokens_per_real_s)},
          {"loss_window_steps", kLossWindow},
          {"train_loss_start", f.train_loss_start},
          {"train_loss_end", f.train_loss_end},
          {"eval_loss_first", or_null(f.eval_loss_first)},
          {"eval_loss_final", or_null(f.eval_loss_final)},
          {"eval_clock_final_s", or_null(f.eval_clock_final_s)},
          {"eval_loss_at_equal_time", or_null(f.eval_loss_at_equal_time)},
          {"checkpoints_full", f.checkpoints_full},
          {"checkpoints_heartbeat", f.checkpoints_heartbeat},
          {"stall_total_s", f.stall_total_s},
          {"stall_mean_s", or_null(f.stall_mean_s)},
          {"preempt_notices", f.preempt_notices},
          {"kills", f.kills},
          {"restarts", f.restarts},
          {"emergency_saves", f.emergency_saves},
          {"preemptions", std::move(preemptions)},
          {"mean_steps_lost", or_null(f.mean_steps_lost)},
          {"mean_seconds_lost", or_null(f.mean_seconds_lost)},
          {"resume", resume(f.resume)},
          {"dollars", dollars(f.dollars, f.has_ledger)},
          {"expert_balance", experts(f)},
          {"plan", std::move(plan)}};
}

Json savings(const Savings& s) {
  return {{"dollars_ratio", or_null(s.dollars_ratio)},
          {"dollars_saved", s.dollars_saved},
          {"tokens_per_s_ratio", or_null(s.tokens_per_s_ratio)},
          {"padding_waste_delta", s.padding_waste_delta},
          {"eval_loss_delta_at_equal_time", or_null(s.eval_loss_delta_at_equal_time)},
          {"target_loss", or_null(s.target_loss)},
          {"frugal_clock_to_target_s", or_null(s.frugal_clock_to_target_s)},
          {"frugal_dollars_to_target", or_null(s.frugal_dollars_to_target)},
          {"baseline_dollars_to_target", or_null(s.baseline_dollars_to_target)},
          {"dollars_to_target_ratio", or_null(s.dollars_to_target_ratio)}};
}

}  // namespace

void write_report_json(const Report& report, const std::filesystem::path& file) {
  const Json out = {{"equal_time_clock_s", report.equal_time_clock_s},
                    {report.baseline.name, run(report.baseline)},
                    {report.frugal.name, run(report.frugal)},
                    {"frugal_vs_baseline", savings(report.savings)}};
  std::ofstream stream(file, std::ios::binary | std::ios::trunc);
  stream << frugal::json::json_text(out) << '\n';
  stream.flush();
  if (!stream) throw std::runtime_error(fmt::format("{}: cannot write the report", file.string()));
}

}  // namespace frugal_demo
