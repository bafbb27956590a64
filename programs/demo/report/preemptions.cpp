// Work lost per preemption: from the state the next attempt starts from
// (its resume event's step, else the last checkpoint saved before the
// kill) to the kill, in steps and in job-clock seconds.
#include "preemptions.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace frugal_demo {
namespace {

const EventRecord* first_event(const RunMetrics& run, int attempt, std::string_view name) {
  for (const auto& e : run.events)
    if (e.attempt == attempt && e.event == name) return &e;
  return nullptr;
}

// The resume event of the first attempt after `attempt` that resumed.
const EventRecord* next_resume(const RunMetrics& run, int attempt) {
  const EventRecord* best = nullptr;
  for (const auto& e : run.events)
    if (e.event == "resume" && e.attempt > attempt && (!best || e.attempt < best->attempt)) best = &e;
  return best;
}

double attempt_end_clock(const RunMetrics& run, int attempt) {
  double end = 0.0;
  for (const auto& s : run.steps)
    if (s.attempt == attempt) end = std::max(end, s.clock_s);
  for (const auto& e : run.events)
    if (e.attempt == attempt) end = std::max(end, e.clock_s);
  return end;
}

// The latest checkpoint of attempts up to `attempt` saved by `clock`.
std::optional<std::int64_t> last_checkpoint(const RunMetrics& run, int attempt, double clock) {
  std::optional<std::int64_t> step;
  double at = -1.0;
  for (const auto& s : run.steps)
    if (s.attempt <= attempt && !s.checkpoint.empty() && s.clock_s <= clock && s.clock_s >= at) {
      step = s.step;
      at = s.clock_s;
    }
  for (const auto& e : run.events)
    if (e.attempt <= attempt && e.event == "emergency_save" && e.clock_s <= clock && e.clock_s >= at) {
      step = e.step;
      at = e.clock_s;
    }
  return step;
}

// When the state of `step` came to be: the latest logging of that step
// by attempts up to `attempt` before `clock`; 0 for the initial state.
double step_clock(const RunMetrics& run, std::int64_t step, int attempt, double clock) {
  double at = 0.0;
  for (const auto& s : run.steps)
    if (s.step == step && s.attempt <= attempt && s.clock_s <= clock) at = std::max(at, s.clock_s);
  return at;
}

}  // namespace

std::vector<Preemption> find_preemptions(const RunMetrics& run) {
  std::set<int> attempts;
  for (const auto& e : run.events)
    if (e.event == "preempt_notice" || e.event == "killed") attempts.insert(e.attempt);
  std::vector<Preemption> out;
  for (const int a : attempts) {
    Preemption p;
    p.attempt = a;
    if (const auto* notice = first_event(run, a, "preempt_notice")) p.notice_clock_s = notice->clock_s;
    const auto* killed = first_event(run, a, "killed");
    p.end_clock_s = killed ? killed->clock_s : attempt_end_clock(run, a);
    if (killed) p.signal = killed->detail;
    if (const auto* resumed = first_event(run, a, "resume")) p.last_step = resumed->step;
    for (const auto& s : run.steps)
      if (s.attempt == a && s.clock_s <= p.end_clock_s) p.last_step = std::max(p.last_step, s.step);
    if (const auto* resume = next_resume(run, a)) p.restored_step = resume->step;
    p.checkpoint_step = p.restored_step.value_or(last_checkpoint(run, a, p.end_clock_s).value_or(0));
    p.checkpoint_clock_s = p.checkpoint_step > 0 ? step_clock(run, p.checkpoint_step, a, p.end_clock_s) : 0.0;
    p.steps_lost = std::max<std::int64_t>(0, p.last_step - p.checkpoint_step);
    p.seconds_lost = std::max(0.0, p.end_clock_s - p.checkpoint_clock_s);
    out.push_back(std::move(p));
  }
  return out;
}

ResumeCheck check_resumes(const RunMetrics& run) {
  ResumeCheck c;
  c.replayed_steps = run.resumes.size();
  for (const auto& r : run.resumes) {
    const double diff = std::fabs(r.loss_before - r.loss_after);
    // A NaN difference (a diverged loss) must not read as agreement.
    const double d = std::isnan(diff) ? INFINITY : diff;
    c.max_abs_loss_diff = std::max(c.max_abs_loss_diff.value_or(0.0), d);
  }
  c.exact = c.max_abs_loss_diff.has_value() && *c.max_abs_loss_diff == 0.0;
  bool all_checkpointed = true;
  for (const auto& e : run.events) {
    if (e.event != "resume") continue;
    c.restored_steps.push_back(e.step);
    const bool saved =
        std::any_of(
            run.steps.begin(), run.steps.end(),
            [&](const StepRecord& s) { return s.step == e.step && !s.checkpoint.empty() && s.attempt < e.attempt; }) ||
        std::any_of(run.events.begin(), run.events.end(), [&](const EventRecord& x) {
          return x.step == e.step && x.attempt < e.attempt && (x.event == "emergency_save" || x.event == "checkpoint");
        });
    all_checkpointed = all_checkpointed && e.step > 0 && saved;
  }
  c.from_checkpointed_step = !c.restored_steps.empty() && all_checkpointed;
  return c;
}

}  // namespace frugal_demo
