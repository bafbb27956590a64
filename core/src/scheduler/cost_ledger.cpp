#include "scheduler/cost_ledger.hpp"

#include <algorithm>

#include "scheduler/telemetry_check.hpp"

namespace frugal::scheduling {
namespace {

// Smoothing of the training loss for "cost per unit of loss": a single
// noisy low record must not make the price of progress look cheap.
constexpr double kLossEmaAlpha = 0.1;
constexpr double kSecondsPerHour = 3600.0;

}  // namespace

void CostLedger::book(const frugal_telemetry& t, double start_s) {
  const double interval = t.wall_time_s - start_s;
  const double rate = t.price_per_node_hour * t.nodes / kSecondsPerHour;  // dollars per second
  const double paid = rate * interval;
  dollars_ += paid;
  (t.resource == FRUGAL_RESOURCE_SPOT ? spot_dollars_ : reserved_dollars_) += paid;
  gpu_hours_ += static_cast<double>(t.nodes) * gpus_per_node_ * interval / kSecondsPerHour;
  wall_s_ = t.wall_time_s;

  if ((t.flags & FRUGAL_TELEMETRY_RESTARTED) != 0) {
    // The downtime is lost, and so is whatever ran since the last checkpoint.
    lost_s_ += pending_s_ + interval;
    lost_dollars_ += pending_dollars_ + paid;
    pending_s_ = 0;
    pending_dollars_ = 0;
    ++restarts_;
  } else {
    const double stall = std::min(t.checkpoint_stall_s, interval);
    stall_s_ += stall;
    stall_dollars_ += rate * stall;
    pending_s_ += interval - stall;
    pending_dollars_ += paid - rate * stall;
    if (t.checkpoint_done != FRUGAL_CKPT_NONE) {
      commit();
      ++(t.checkpoint_done == FRUGAL_CKPT_FULL ? checkpoints_full_ : checkpoints_heartbeat_);
    }
  }

  if (!has_loss(t)) return;  // no loss observed at this step
  if (!has_loss_) {
    has_loss_ = true;
    loss_first_ = loss_ema_ = loss_best_ = t.loss;
  } else {
    loss_ema_ += kLossEmaAlpha * (t.loss - loss_ema_);
    loss_best_ = std::min(loss_best_, loss_ema_);
  }
}

void CostLedger::commit() noexcept {
  kept_s_ += pending_s_;
  kept_dollars_ += pending_dollars_;
  pending_s_ = 0;
  pending_dollars_ = 0;
}

frugal_cost_ledger CostLedger::view() const {
  frugal_cost_ledger l{};
  l.struct_size = sizeof(l);
  l.dollars = dollars_;
  l.spot_dollars = spot_dollars_;
  l.reserved_dollars = reserved_dollars_;
  l.productive_dollars = kept_dollars_ + pending_dollars_;
  l.stall_dollars = stall_dollars_;
  l.lost_dollars = lost_dollars_;
  l.gpu_hours = gpu_hours_;
  l.wall_s = wall_s_;
  l.productive_s = kept_s_ + pending_s_;
  l.stall_s = stall_s_;
  l.lost_s = lost_s_;
  l.restarts = restarts_;
  l.checkpoints_full = checkpoints_full_;
  l.checkpoints_heartbeat = checkpoints_heartbeat_;
  l.loss_first = loss_first_;
  l.loss_best = loss_best_;
  const double improvement = loss_first_ - loss_best_;
  l.dollars_per_loss = improvement > 0 ? dollars_ / improvement : 0.0;
  return l;
}

void CostLedger::save(StateWriter& out) const {
  for (double v : {dollars_, spot_dollars_, reserved_dollars_, kept_dollars_ + pending_dollars_, stall_dollars_,
                   lost_dollars_, gpu_hours_, wall_s_, kept_s_ + pending_s_, stall_s_, lost_s_})
    out.f64(v);
  out.i64(restarts_);
  out.i64(checkpoints_full_);
  out.i64(checkpoints_heartbeat_);
  out.flag(has_loss_);
  out.f64(loss_first_);
  out.f64(loss_ema_);
  out.f64(loss_best_);
}

void CostLedger::load(StateReader& in) {
  // Money and time only accumulate: each is finite and >= 0; the counts
  // are counters. The losses are finite (telemetry losses are).
  CostLedger l(gpus_per_node_);
  l.dollars_ = in.at_least("ledger.dollars", 0.0);
  l.spot_dollars_ = in.at_least("ledger.spot_dollars", 0.0);
  l.reserved_dollars_ = in.at_least("ledger.reserved_dollars", 0.0);
  l.kept_dollars_ = in.at_least("ledger.productive_dollars", 0.0);
  l.stall_dollars_ = in.at_least("ledger.stall_dollars", 0.0);
  l.lost_dollars_ = in.at_least("ledger.lost_dollars", 0.0);
  l.gpu_hours_ = in.at_least("ledger.gpu_hours", 0.0);
  l.wall_s_ = in.at_least("ledger.wall_s", 0.0);
  l.kept_s_ = in.at_least("ledger.productive_s", 0.0);
  l.stall_s_ = in.at_least("ledger.stall_s", 0.0);
  l.lost_s_ = in.at_least("ledger.lost_s", 0.0);
  l.restarts_ = in.counter("ledger.restarts");
  l.checkpoints_full_ = in.counter("ledger.checkpoints_full");
  l.checkpoints_heartbeat_ = in.counter("ledger.checkpoints_heartbeat");
  l.has_loss_ = in.flag("ledger.has_loss");
  l.loss_first_ = in.finite("ledger.loss_first");
  l.loss_ema_ = in.finite("ledger.loss_ema");
  l.loss_best_ = in.finite("ledger.loss_best");
  *this = l;
}

}  // namespace frugal::scheduling
