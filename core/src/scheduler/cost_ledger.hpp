// The scheduler's cost ledger: every interval between telemetry records is
// paid at price x nodes and booked as productive, checkpoint stall or lost.
// Work since the last checkpoint is "pending": productive until a restart
// moves it to lost, kept once a checkpoint commits it. Internal to libfrugal.
#pragma once

#include <cstdint>

#include "frugal/scheduler.h"
#include "state_frame.hpp"

namespace frugal::scheduling {

class CostLedger {
 public:
  explicit CostLedger(uint32_t gpus_per_node) : gpus_per_node_(gpus_per_node) {}

  // Books the interval (start_s, t.wall_time_s] of an accepted record:
  // money, GPU-hours, the stall, a restart's loss, checkpoint counts, the
  // smoothed loss. A record reporting checkpoint_done commits the work up
  // to its own time (hosts report right after the checkpoint completes).
  void book(const frugal_telemetry& t, double start_s);

  // The work so far is saved.
  void commit() noexcept;

  [[nodiscard]] frugal_cost_ledger view() const;
  [[nodiscard]] uint32_t gpus_per_node() const noexcept { return gpus_per_node_; }

  // The blob is written as of a checkpoint: pending work is committed in
  // it (the exported moment is a checkpoint the job can resume from).
  void save(StateWriter& out) const;
  void load(StateReader& in);

 private:
  uint32_t gpus_per_node_;
  double dollars_ = 0, spot_dollars_ = 0, reserved_dollars_ = 0;
  double kept_dollars_ = 0, pending_dollars_ = 0, stall_dollars_ = 0, lost_dollars_ = 0;
  double gpu_hours_ = 0, wall_s_ = 0;
  double kept_s_ = 0, pending_s_ = 0, stall_s_ = 0, lost_s_ = 0;
  int64_t restarts_ = 0, checkpoints_full_ = 0, checkpoints_heartbeat_ = 0;
  bool has_loss_ = false;
  double loss_first_ = 0, loss_ema_ = 0, loss_best_ = 0;
};

}  // namespace frugal::scheduling
