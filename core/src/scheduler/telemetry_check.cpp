#include "scheduler/telemetry_check.hpp"

#include <cmath>

#include "error.hpp"
#include "sized_structs.hpp"

namespace frugal::scheduling {
namespace {

constexpr uint32_t kKnownFlags = FRUGAL_TELEMETRY_EVAL_LOSS | FRUGAL_TELEMETRY_RESTARTED | FRUGAL_TELEMETRY_NO_LOSS;

void require_finite(double value, const char* field, int64_t step) {
  if (!std::isfinite(value))
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "telemetry.{} is {} at step {}; it must be a finite number", field, value, step);
}

void require_non_negative(double value, const char* field, int64_t step) {
  require_finite(value, field, step);
  if (value < 0.0)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "telemetry.{} is {} at step {}; it must be >= 0", field, value, step);
}

}  // namespace

frugal_telemetry read_telemetry(const frugal_telemetry* raw) {
  require_non_null(raw, "frugal_scheduler_step", "telemetry");
  frugal_telemetry t = read_sized(raw);
  require_size(&t, kTelemetryMinSize, "telemetry");
  return t;
}

void check_telemetry(const frugal_telemetry& t, const PreviousRecord& previous) {
  check_fields(t);
  check_order(t, previous);
}

void check_fields(const frugal_telemetry& t) {
  if ((t.flags & ~kKnownFlags) != 0)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "telemetry.flags has unknown bits {:#x} at step {}", t.flags & ~kKnownFlags,
         t.step);
  if (t.step < 0) fail(FRUGAL_ERR_INVALID_ARGUMENT, "telemetry.step is {}; it must be >= 0", t.step);
  if (t.tokens < 0)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "telemetry.tokens is {} at step {}; it must be >= 0", t.tokens, t.step);
  if (t.nodes < 1) fail(FRUGAL_ERR_INVALID_ARGUMENT, "telemetry.nodes is 0 at step {}; at least one node ran", t.step);
  if (has_loss(t)) require_finite(t.loss, "loss", t.step);
  if ((t.flags & FRUGAL_TELEMETRY_EVAL_LOSS) != 0) require_finite(t.eval_loss, "eval_loss", t.step);
  require_non_negative(t.wall_time_s, "wall_time_s", t.step);
  require_non_negative(t.price_per_node_hour, "price_per_node_hour", t.step);
  if (t.resource != FRUGAL_RESOURCE_SPOT && t.resource != FRUGAL_RESOURCE_RESERVED)
    fail(FRUGAL_ERR_INVALID_ARGUMENT,
         "telemetry.resource is {} at step {}; it must be FRUGAL_RESOURCE_SPOT (1) or FRUGAL_RESOURCE_RESERVED (2)",
         t.resource, t.step);
  if (t.checkpoint_done < FRUGAL_CKPT_NONE || t.checkpoint_done > FRUGAL_CKPT_FULL)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "telemetry.checkpoint_done is {} at step {}; it must be NONE, HEARTBEAT or FULL",
         t.checkpoint_done, t.step);
  require_non_negative(t.checkpoint_stall_s, "checkpoint_stall_s", t.step);
  if (t.checkpoint_stall_s > 0.0 && t.checkpoint_done == FRUGAL_CKPT_NONE)
    fail(FRUGAL_ERR_INVALID_ARGUMENT,
         "telemetry.checkpoint_stall_s is {} s at step {} but checkpoint_done is NONE; report the checkpoint that "
         "stalled",
         t.checkpoint_stall_s, t.step);
  require_non_negative(t.preemption_notice_s, "preemption_notice_s", t.step);
}

void check_order(const frugal_telemetry& t, const PreviousRecord& previous) {
  const double start = previous.present ? previous.wall_s : 0.0;
  if (t.wall_time_s < start)
    fail(FRUGAL_ERR_INVALID_ARGUMENT,
         "telemetry.wall_time_s went back from {} s to {} s at step {}; the job clock never goes back (not even "
         "across a restart)",
         start, t.wall_time_s, t.step);
  const double interval = t.wall_time_s - start;
  if (t.checkpoint_stall_s > interval + stall_slack(interval))
    fail(FRUGAL_ERR_INVALID_ARGUMENT,
         "telemetry.checkpoint_stall_s is {} s at step {}, longer than the {} s since the previous record",
         t.checkpoint_stall_s, t.step, interval);
  if (previous.present && (t.flags & FRUGAL_TELEMETRY_RESTARTED) == 0) {
    if (t.step < previous.step)
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "telemetry.step went back from {} to {} without FRUGAL_TELEMETRY_RESTARTED",
           previous.step, t.step);
    if (t.tokens < previous.tokens)
      fail(FRUGAL_ERR_INVALID_ARGUMENT,
           "telemetry.tokens went back from {} to {} at step {} without FRUGAL_TELEMETRY_RESTARTED", previous.tokens,
           t.tokens, t.step);
  }
}

}  // namespace frugal::scheduling
