// Telemetry records as the scheduler accepts them: read honouring the
// caller's struct_size, then checked field by field against the previous
// record, so policies only ever see finite values with time and progress in
// order. Internal to libfrugal.
#pragma once

#include <cstdint>

#include "frugal/telemetry.h"

namespace frugal::scheduling {

// What the checks need to remember of the last accepted record.
struct PreviousRecord {
  bool present = false;
  double wall_s = 0.0;
  int64_t step = 0;
  int64_t tokens = 0;
};

// Bytes of frugal_telemetry a caller must provide (through `resource`);
// the checkpoint and notice fields default to 0.
inline constexpr size_t kTelemetryMinSize = offsetof(frugal_telemetry, resource) + sizeof(int32_t);

// The caller's record with fields past its struct_size zeroed; NULL or a
// too-small struct_size is an error.
frugal_telemetry read_telemetry(const frugal_telemetry* raw);

// Whether the record carries a training loss (FRUGAL_TELEMETRY_NO_LOSS unset).
inline bool has_loss(const frugal_telemetry& t) noexcept { return (t.flags & FRUGAL_TELEMETRY_NO_LOSS) == 0; }

// The record as policies see it: without a loss, the loss reads 0, so a
// policy never sees a value the host did not mean (a NaN placeholder).
inline frugal_telemetry as_policies_see(frugal_telemetry t) noexcept {
  if (!has_loss(t)) t.loss = 0.0;
  return t;
}

// Throws FRUGAL_ERR_INVALID_ARGUMENT naming the field, its value and the
// rule ("telemetry.wall_time_s went back from 3600 s to 3599 s"): both
// halves below.
void check_telemetry(const frugal_telemetry& t, const PreviousRecord& previous);

// The record on its own: flags, ranges, finite values, a stall with a
// checkpoint. Each rank checks its own record so (scheduler across ranks).
void check_fields(const frugal_telemetry& t);

// The record against the previous one: the job clock, the stall within the
// interval, step and tokens not going back without a restart.
void check_order(const frugal_telemetry& t, const PreviousRecord& previous);

// A small slack for checkpoint stalls measured with a different clock
// than the interval: 1 ms or one part in a million.
inline double stall_slack(double interval) noexcept { return 1e-3 + 1e-6 * interval; }

}  // namespace frugal::scheduling
