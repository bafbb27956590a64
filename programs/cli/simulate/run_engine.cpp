#include "run_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "event_budget.hpp"
#include "loss_model.hpp"
#include "random.hpp"

namespace frugal::simulate {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSecondsPerHour = 3600.0;
// Records at one instant before the engine calls the decisions a loop
// (a policy that asks for zero-cost checkpoints forever, say).
constexpr int kMaxRecordsAtOneTime = 100;
// Records counted locally before they are added to RunSetup::events: one
// shared atomic per record would be contended by every worker.
constexpr uint64_t kEventBatch = 1024;

// Independent random streams of a run, so that e.g. loss noise does not
// shift the preemption times of the same seed.
enum Stream : uint64_t { kPreemptionStream = 1, kWaitStream = 2, kLossStream = 3 };

class Run {
 public:
  Run(const RunSetup& setup, DecisionSource& source, uint64_t seed, std::vector<TimelinePoint>* timeline)
      : setup_(setup),
        job_(*setup.job),
        source_(source),
        timeline_(timeline),
        preemption_rng_(derive_seed(seed, 0, kPreemptionStream)),
        wait_rng_(derive_seed(seed, 0, kWaitStream)),
        loss_rng_(derive_seed(seed, 0, kLossStream)) {}

  RunResult run() {
    source_.begin_run();
    resource_ = setup_.plan->resource;
    nodes_ = setup_.plan->nodes;
    // The first record (an empty interval) reports the starting loss; its
    // decision may still pick where to start, at no cost: nothing runs yet.
    emit(0, 0.0, FRUGAL_CKPT_NONE);
    if (decision_->resource != 0) resource_ = decision_->resource;
    if (decision_->target_nodes != 0) nodes_ = decision_->target_nodes;
    start_on_capacity();
    while (!ended_) step();
    finish_books();
    flush_events();
    return result_;
  }

 private:
  // ---- money and time ------------------------------------------------------

  double price_rate_integral(double t0, double t1) const {  // $ x s per node-hour
    if (resource_ == FRUGAL_RESOURCE_SPOT && setup_.trace != nullptr && setup_.trace->has_prices())
      return setup_.trace->price_integral(t1) - setup_.trace->price_integral(t0);
    return (resource_ == FRUGAL_RESOURCE_SPOT ? job_.spot_price : job_.reserved_price) * (t1 - t0);
  }

  double price_now() const {
    if (resource_ == FRUGAL_RESOURCE_SPOT && setup_.trace != nullptr && setup_.trace->has_prices())
      return setup_.trace->mean_price(t_, t_);
    return resource_ == FRUGAL_RESOURCE_SPOT ? job_.spot_price : job_.reserved_price;
  }

  // Pays for the capacity held from t_ to t1 and moves the clock there.
  double hold_until(double t1) {
    const double dollars = static_cast<double>(nodes_) * price_rate_integral(t_, t1) / kSecondsPerHour;
    interval_dollars_ += dollars;
    result_.dollars += dollars;
    (resource_ == FRUGAL_RESOURCE_SPOT ? result_.spot_dollars : result_.reserved_dollars) += dollars;
    t_ = t1;
    return dollars;
  }

  void train_until(double t1) {
    const double dt = t1 - t_;
    tokens_ = std::min(setup_.target_tokens, tokens_ + rate_ * dt);
    pending_dollars_ += hold_until(t1);
    pending_s_ += dt;
  }

  // ---- records -------------------------------------------------------------

  void emit(uint32_t flags, double notice_s, int32_t checkpoint_done) {
    const double interval = t_ - t_rec_;
    frugal_telemetry t{};
    t.struct_size = sizeof(t);
    t.flags = flags | FRUGAL_TELEMETRY_EVAL_LOSS;
    t.nodes = nodes_;
    t.step = static_cast<int64_t>(tokens_ / static_cast<double>(job_.tokens_per_step));
    t.tokens = static_cast<int64_t>(tokens_);
    const double real_tokens = tokens_ * (1.0 - setup_.plan->padding_fraction);
    const double loss = loss_at(job_.loss, real_tokens, static_cast<double>(t.step));
    t.loss = loss * (1.0 + job_.loss.noise * (job_.loss.noise > 0 ? loss_rng_.normal() : 0.0));
    t.eval_loss = loss * (1.0 + job_.loss.eval_noise * (job_.loss.eval_noise > 0 ? loss_rng_.normal() : 0.0));
    t.wall_time_s = t_;
    // The interval's mean price: what was paid over it per node-hour
    // (unpaid capacity waits included in the interval lower it).
    t.price_per_node_hour =
        interval > 0.0 ? interval_dollars_ * kSecondsPerHour / (static_cast<double>(nodes_) * interval) : price_now();
    t.resource = resource_;
    t.checkpoint_done = checkpoint_done;
    t.checkpoint_stall_s = checkpoint_done != FRUGAL_CKPT_NONE ? interval : 0.0;
    t.preemption_notice_s = notice_s;

    result_.fleet_gpu_hours += static_cast<double>(nodes_) * job_.gpus_per_node * interval / kSecondsPerHour;
    if (result_.records == 0) result_.loss_first = t.loss;
    result_.loss_last = t.loss;
    ++result_.records;
    // check_event_budget refused the jobs whose numbers call for more; this
    // catches what no estimate foresees (decisions due every millisecond,
    // a storm of preemptions), so that no run goes on for ever.
    if (static_cast<double>(result_.records) > setup_.max_events)
      throw std::runtime_error(
          fmt::format("plan '{}': a run went past the limit of {:.0e} simulated events at {:.6g} s of "
                      "job clock (last reason: {})",
                      setup_.plan->name, setup_.max_events, t_, decision_ != nullptr ? decision_->reason : ""));
    if (++unflushed_events_ == kEventBatch) flush_events();
    same_time_records_ = interval > 0.0 || result_.records == 1 ? 0 : same_time_records_ + 1;
    if (same_time_records_ > kMaxRecordsAtOneTime)
      throw std::runtime_error(fmt::format("plan '{}': the decisions do not let time advance at {} s (last reason: {})",
                                           setup_.plan->name, t_, decision_ != nullptr ? decision_->reason : ""));

    decision_ = &source_.step(t);
    interval_dollars_ = 0.0;
    t_rec_ = t_;
    if (timeline_ != nullptr) timeline_->push_back({t_, result_.dollars, t.loss, resource_, nodes_, flags});
  }

  void flush_events() {
    if (setup_.events != nullptr) setup_.events->fetch_add(unflushed_events_, std::memory_order_relaxed);
    unflushed_events_ = 0;
  }

  // ---- capacity ------------------------------------------------------------

  bool trace_gives_availability() const { return setup_.trace != nullptr && setup_.trace->has_availability(); }

  // After a (re)start at t_: when the next preemption of spot capacity comes.
  void schedule_preemption() {
    notice_sent_ = false;
    // pow() per restart adds up over thousands of runs; node counts repeat.
    if (nodes_ != rate_nodes_) {
      rate_ = node_throughput(job_, nodes_);
      rate_nodes_ = nodes_;
    }
    if (resource_ != FRUGAL_RESOURCE_SPOT) {
      t_preempt_ = kInf;
    } else if (trace_gives_availability()) {
      t_preempt_ = setup_.trace->next_unavailable(t_);
    } else {
      const double mtbf = spot_mtbf_s(job_, nodes_);
      t_preempt_ = mtbf > 0.0 ? t_ + preemption_rng_.exponential(mtbf) : kInf;
    }
    t_notice_ = job_.preemption.notice_s > 0.0 ? std::max(t_, t_preempt_ - job_.preemption.notice_s) : kInf;
  }

  // Unpaid: the time until spot capacity can be had again.
  double capacity_wait() {
    if (resource_ != FRUGAL_RESOURCE_SPOT) return 0.0;
    if (trace_gives_availability()) return setup_.trace->next_available(t_) - t_;
    const double mean = job_.preemption.capacity_wait_mean_s;
    return mean > 0.0 ? wait_rng_.exponential(mean) : 0.0;
  }

  // The job starts at 0 unless its spot capacity is not there yet: then it
  // waits and boots like after a preemption.
  void start_on_capacity() {
    if (resource_ == FRUGAL_RESOURCE_SPOT && trace_gives_availability() && !setup_.trace->available_at(0.0)) {
      preempt();
      return;
    }
    schedule_preemption();
  }

  // Capacity is gone (or was never there): everything since the last
  // checkpoint is lost; wait, boot on the same capacity class, report.
  void preempt() {
    ++result_.preemptions;
    restart(capacity_wait());
  }

  // Downtime (wait unpaid, then restart_s paid) and the RESTARTED record.
  void restart(double wait_s) {
    const double start = t_;
    t_ += wait_s;
    const double downtime_dollars = hold_until(t_ + job_.restart_s);
    result_.lost_s += pending_s_ + pending_stall_s_ + (t_ - start);
    result_.lost_dollars += pending_dollars_ + pending_stall_dollars_ + downtime_dollars;
    pending_s_ = pending_dollars_ = pending_stall_s_ = pending_stall_dollars_ = 0.0;
    tokens_ = checkpoint_tokens_;
    emit(FRUGAL_TELEMETRY_RESTARTED, 0.0, FRUGAL_CKPT_NONE);
    schedule_preemption();
  }

  // ---- the loop ------------------------------------------------------------

  double notice_left() const { return notice_sent_ && t_preempt_ > t_ ? t_preempt_ - t_ : 0.0; }

  void step() {
    if (decision_->stop != FRUGAL_STOP_NONE) {
      result_.stop_reason = decision_->stop;
      ended_ = true;
      return;
    }
    // Checked here and not only while training: a job preempted during
    // every checkpoint and restart never trains, and would never be cut.
    // Every step follows a record, so nothing is left unreported.
    if (t_ >= setup_.max_wall_s) {
      result_.cut = true;
      ended_ = true;
      return;
    }
    const bool move = (decision_->resource != 0 && decision_->resource != resource_) ||
                      (decision_->target_nodes != 0 && decision_->target_nodes != nodes_);
    const bool unsaved = tokens_ > checkpoint_tokens_;
    if (decision_->checkpoint != FRUGAL_CKPT_NONE || (move && unsaved)) {
      checkpoint(decision_->checkpoint != FRUGAL_CKPT_NONE ? decision_->checkpoint
                                                           : static_cast<int32_t>(FRUGAL_CKPT_HEARTBEAT));
    } else if (move) {
      move_to(decision_->resource != 0 ? decision_->resource : resource_,
              decision_->target_nodes != 0 ? decision_->target_nodes : nodes_);
    } else {
      run_to_next_event();
    }
  }

  // Training stalls for the checkpoint; a preemption before its end loses it.
  void checkpoint(int32_t kind) {
    const double end = t_ + (kind == FRUGAL_CKPT_FULL ? job_.checkpoint_full_s : job_.checkpoint_heartbeat_s);
    if (t_preempt_ < end) {
      pending_stall_dollars_ += hold_until(std::max(t_, t_preempt_));
      pending_stall_s_ = t_ - t_rec_;
      preempt();
      return;
    }
    const double stall_dollars = hold_until(end);
    result_.stall_s += t_ - t_rec_;
    result_.stall_dollars += stall_dollars;
    result_.productive_s += pending_s_;
    result_.productive_dollars += pending_dollars_;
    pending_s_ = pending_dollars_ = 0.0;
    checkpoint_tokens_ = tokens_;
    ++(kind == FRUGAL_CKPT_FULL ? result_.checkpoints_full : result_.checkpoints_heartbeat);
    // A notice that came during the stall is delivered at its end.
    if (t_notice_ <= t_ && !notice_sent_) notice_sent_ = true;
    emit(0, notice_left(), kind);
  }

  // Leaves the current capacity (the work is saved) for another class or
  // node count: boot there (waiting first if a trace says spot is gone).
  void move_to(int32_t resource, uint32_t nodes) {
    ++result_.moves;
    resource_ = resource;
    nodes_ = nodes;
    restart(capacity_wait());
  }

  void run_to_next_event() {
    const double t_done = t_ + (setup_.target_tokens - tokens_) / rate_;
    const double t_tick = t_rec_ + job_.telemetry_interval_s;
    const double t_due = decision_->next_due_s > t_ ? decision_->next_due_s : kInf;
    const double t_notice = notice_sent_ ? kInf : std::max(t_, t_notice_);
    const double t_cut = std::max(t_, setup_.max_wall_s);
    const double t_next = std::min({t_done, t_preempt_, t_notice, t_cut, t_tick, t_due});
    train_until(std::max(t_, t_next));
    if (t_done <= t_next) {
      tokens_ = setup_.target_tokens;
      result_.finished = true;
      ended_ = true;
      emit(0, notice_left(), FRUGAL_CKPT_NONE);
    } else if (t_preempt_ <= t_next) {
      preempt();
    } else if (t_notice <= t_next) {
      notice_sent_ = true;
      emit(0, notice_left(), FRUGAL_CKPT_NONE);
    } else if (t_cut <= t_next) {
      result_.cut = true;
      ended_ = true;
      emit(0, notice_left(), FRUGAL_CKPT_NONE);
    } else {
      emit(0, notice_left(), FRUGAL_CKPT_NONE);
    }
  }

  void finish_books() {
    result_.wall_s = t_;
    result_.productive_s += pending_s_;
    result_.productive_dollars += pending_dollars_;
    result_.processed_tokens = tokens_;
    result_.useful_gpu_hours = useful_gpu_hours(job_, tokens_);
    result_.has_ledger = source_.ledger(result_.ledger);
  }

  const RunSetup& setup_;
  const Job& job_;
  DecisionSource& source_;
  std::vector<TimelinePoint>* timeline_;
  Rng preemption_rng_, wait_rng_, loss_rng_;
  RunResult result_;
  const frugal_decision* decision_ = nullptr;

  double t_ = 0.0;      // job clock now
  double t_rec_ = 0.0;  // the last record's time: the current interval starts there
  double interval_dollars_ = 0.0;
  int32_t resource_ = FRUGAL_RESOURCE_SPOT;
  uint32_t nodes_ = 1;
  double rate_ = 0.0;  // processed tokens per second on rate_nodes_ (== nodes_ while running)
  uint32_t rate_nodes_ = 0;
  double tokens_ = 0.0, checkpoint_tokens_ = 0.0;
  // Time and money since the last checkpoint: productive until a restart
  // loses it; an unfinished checkpoint's stall is lost with it.
  double pending_s_ = 0.0, pending_dollars_ = 0.0;
  double pending_stall_s_ = 0.0, pending_stall_dollars_ = 0.0;
  double t_preempt_ = kInf, t_notice_ = kInf;
  bool notice_sent_ = false;
  bool ended_ = false;
  int same_time_records_ = 0;
  uint64_t unflushed_events_ = 0;
};

std::string compare(const char* what, double ledger, double engine, double tolerance) {
  const double scale = std::max({1.0, std::abs(ledger), std::abs(engine)});
  if (std::abs(ledger - engine) <= tolerance * scale) return {};
  return fmt::format("{}: ledger {} != engine {}; ", what, ledger, engine);
}

}  // namespace

RunSetup make_run_setup(const Job& job, const PlanSpec& plan, const Trace* trace) {
  RunSetup setup;
  setup.job = &job;
  setup.plan = &plan;
  setup.trace = trace;
  setup.target_tokens = plan_tokens(job, plan);
  const double ideal_s = setup.target_tokens / node_throughput(job, plan.nodes);
  setup.max_wall_s = job.max_wall_h > 0.0 ? job.max_wall_h * kSecondsPerHour : 50.0 * ideal_s;
  return setup;
}

RunResult simulate_run(const RunSetup& setup, DecisionSource& source, uint64_t seed,
                       std::vector<TimelinePoint>* timeline) {
  return Run(setup, source, seed, timeline).run();
}

std::string check_conservation(const RunResult& r, double tolerance) {
  std::string problems;
  problems += compare("engine productive + stall + lost vs wall time", r.productive_s + r.stall_s + r.lost_s, r.wall_s,
                      tolerance);
  problems += compare("engine productive + stall + lost dollars vs dollars",
                      r.productive_dollars + r.stall_dollars + r.lost_dollars, r.dollars, tolerance);
  problems +=
      compare("engine spot + reserved dollars vs dollars", r.spot_dollars + r.reserved_dollars, r.dollars, tolerance);
  if (r.has_ledger) {
    const auto& l = r.ledger;
    problems += compare("dollars", l.dollars, r.dollars, tolerance);
    problems += compare("spot dollars", l.spot_dollars, r.spot_dollars, tolerance);
    problems += compare("reserved dollars", l.reserved_dollars, r.reserved_dollars, tolerance);
    problems += compare("productive dollars", l.productive_dollars, r.productive_dollars, tolerance);
    problems += compare("stall dollars", l.stall_dollars, r.stall_dollars, tolerance);
    problems += compare("lost dollars", l.lost_dollars, r.lost_dollars, tolerance);
    problems += compare("wall seconds", l.wall_s, r.wall_s, tolerance);
    problems += compare("productive seconds", l.productive_s, r.productive_s, tolerance);
    problems += compare("stall seconds", l.stall_s, r.stall_s, tolerance);
    problems += compare("lost seconds", l.lost_s, r.lost_s, tolerance);
    problems += compare("GPU-hours", l.gpu_hours, r.fleet_gpu_hours, tolerance);
    problems += compare("ledger productive + stall + lost vs wall time", l.productive_s + l.stall_s + l.lost_s,
                        l.wall_s, tolerance);
    problems += compare("ledger productive + stall + lost dollars vs dollars",
                        l.productive_dollars + l.stall_dollars + l.lost_dollars, l.dollars, tolerance);
    if (l.restarts != r.preemptions + r.moves)
      problems +=
          fmt::format("restarts: ledger {} != engine {} preemptions + {} moves; ", l.restarts, r.preemptions, r.moves);
  }
  if (!problems.empty()) problems.resize(problems.size() - 2);
  return problems;
}

}  // namespace frugal::simulate
