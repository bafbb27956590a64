#include "scheduler/job_record.hpp"

#include <algorithm>
#include <bit>

#include "error.hpp"
#include "frugal/sdk/checksum.hpp"

namespace frugal::scheduling {
namespace {

uint64_t bits(double v) noexcept { return std::bit_cast<uint64_t>(v); }
double from_bits(uint64_t v) noexcept { return std::bit_cast<double>(v); }

// Adds `term` to a sum that starts with its first term (so one term comes
// back with its own bits, the sign of a zero included).
void accumulate(double& sum, bool& started, double term) noexcept {
  sum = started ? sum + term : term;
  started = true;
}

}  // namespace

PacketWords pack(const RankPacket& packet) noexcept {
  const frugal_telemetry& t = packet.record;
  return PacketWords{static_cast<uint64_t>(packet.status),
                     t.flags,
                     t.nodes,
                     static_cast<uint64_t>(t.step),
                     static_cast<uint64_t>(t.tokens),
                     bits(t.loss),
                     bits(t.eval_loss),
                     bits(t.wall_time_s),
                     bits(t.price_per_node_hour),
                     static_cast<uint64_t>(static_cast<int64_t>(t.resource)),
                     static_cast<uint64_t>(static_cast<int64_t>(t.checkpoint_done)),
                     bits(t.checkpoint_stall_s),
                     bits(t.preemption_notice_s),
                     packet.digest};
}

RankPacket unpack(std::span<const uint64_t, kPacketWords> w) noexcept {
  RankPacket p;
  // A status this build does not know (a corrupted packet) reads as refused.
  p.status = w[0] <= static_cast<uint64_t>(RankStatus::failed) ? static_cast<RankStatus>(w[0]) : RankStatus::refused;
  frugal_telemetry& t = p.record;
  t.struct_size = sizeof(t);
  t.flags = static_cast<uint32_t>(w[1]);
  t.nodes = static_cast<uint32_t>(w[2]);
  t.step = static_cast<int64_t>(w[3]);
  t.tokens = static_cast<int64_t>(w[4]);
  t.loss = from_bits(w[5]);
  t.eval_loss = from_bits(w[6]);
  t.wall_time_s = from_bits(w[7]);
  t.price_per_node_hour = from_bits(w[8]);
  t.resource = static_cast<int32_t>(static_cast<int64_t>(w[9]));
  t.checkpoint_done = static_cast<int32_t>(static_cast<int64_t>(w[10]));
  t.checkpoint_stall_s = from_bits(w[11]);
  t.preemption_notice_s = from_bits(w[12]);
  p.digest = w[13];
  return p;
}

frugal_telemetry reduce_records(std::span<const frugal_telemetry> ranks, const PreviousRecord& previous) {
  if (ranks.empty()) fail(FRUGAL_ERR_INTERNAL, "scheduler: no rank's record to reduce");
  const frugal_telemetry& first = ranks.front();
  for (size_t r = 1; r < ranks.size(); ++r)
    if (ranks[r].step != first.step)
      fail(FRUGAL_ERR_INVALID_ARGUMENT,
           "telemetry.step is {} on rank {} and {} on rank 0; every rank reports the step the job is at (one "
           "frugal_scheduler_step per step on every rank)",
           ranks[r].step, r, first.step);

  frugal_telemetry job{};
  job.struct_size = sizeof(job);
  job.step = first.step;
  // The job's capacity: rank 0's.
  job.nodes = first.nodes;
  job.price_per_node_hour = first.price_per_node_hour;
  job.resource = first.resource;

  int64_t loss_tokens = 0;  // the tokens of the ranks with a loss
  size_t with_loss = 0;
  size_t with_eval = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const frugal_telemetry& t = ranks[r];
    if (__builtin_add_overflow(job.tokens, t.tokens, &job.tokens))
      fail(FRUGAL_ERR_INVALID_ARGUMENT,
           "telemetry.tokens summed over ranks 0..{} passes 2^63 - 1 at step {}; each rank reports its own tokens", r,
           t.step);
    job.flags |= t.flags & FRUGAL_TELEMETRY_RESTARTED;
    if (has_loss(t)) {
      ++with_loss;
      loss_tokens += t.tokens;  // at most the sum above, which did not overflow
    }
    if ((t.flags & FRUGAL_TELEMETRY_EVAL_LOSS) != 0) ++with_eval;
    job.wall_time_s = r == 0 ? t.wall_time_s : std::max(job.wall_time_s, t.wall_time_s);
    job.checkpoint_done = std::max(job.checkpoint_done, t.checkpoint_done);
    job.checkpoint_stall_s = std::max(job.checkpoint_stall_s, t.checkpoint_stall_s);
    if (t.preemption_notice_s > 0 && (job.preemption_notice_s == 0 || t.preemption_notice_s < job.preemption_notice_s))
      job.preemption_notice_s = t.preemption_notice_s;
  }

  // Means as sums of share x value, in rank order (share: tokens_r / the
  // tokens of the ranks with a loss, or 1 / k): bounded by the largest
  // value (no overflow), the same bits on every rank.
  bool loss_started = false;
  bool eval_started = false;
  for (const frugal_telemetry& t : ranks) {
    if (has_loss(t)) {
      const double share = loss_tokens > 0 ? static_cast<double>(t.tokens) / static_cast<double>(loss_tokens)
                                           : 1.0 / static_cast<double>(with_loss);
      accumulate(job.loss, loss_started, share * t.loss);  // x 1.0 is exact: one rank keeps its bits
    }
    if ((t.flags & FRUGAL_TELEMETRY_EVAL_LOSS) != 0)
      accumulate(job.eval_loss, eval_started, (1.0 / static_cast<double>(with_eval)) * t.eval_loss);
  }
  if (with_loss == 0) job.flags |= FRUGAL_TELEMETRY_NO_LOSS;
  if (with_eval > 0) job.flags |= FRUGAL_TELEMETRY_EVAL_LOSS;

  // Ranks' clocks differ a little: the slowest rank's stall may pass the
  // job's interval (the latest clock minus the previous latest). One rank's
  // record stays as it is (check_order refuses a stall past its interval).
  const double interval = job.wall_time_s - (previous.present ? previous.wall_s : 0.0);
  if (ranks.size() > 1 && interval >= 0)
    job.checkpoint_stall_s = std::min(job.checkpoint_stall_s, interval + stall_slack(interval));
  return job;
}

uint64_t step_digest(const frugal_decision& d, const std::string& reason, const frugal_cost_ledger& ledger) noexcept {
  sdk::Xxh3Stream h;
  const uint64_t fields[] = {bits(d.lr),
                             static_cast<uint64_t>(static_cast<int64_t>(d.checkpoint)),
                             static_cast<uint64_t>(static_cast<int64_t>(d.resource)),
                             d.target_nodes,
                             static_cast<uint64_t>(static_cast<int64_t>(d.stop)),
                             bits(d.next_due_s),
                             reason.size()};
  h.update(fields, sizeof(fields));
  h.update(reason.data(), reason.size());
  h.update(&ledger, sizeof(ledger));  // every field 8 bytes wide: no padding
  // 0 means "nothing decided yet": never a digest.
  const uint64_t digest = h.digest();
  return digest != 0 ? digest : 1;
}

}  // namespace frugal::scheduling
