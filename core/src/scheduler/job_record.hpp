// A scheduler across ranks (frugal_scheduler_config.comm, ABI 2.4): what
// each rank sends in the step's one all-gather (its record, whether it can
// step, a checksum of what it decided last), and the job's record every
// rank reduces from the gathered packets, in rank order, so the reduced
// bits are the same everywhere. The rules are listed in frugal/scheduler.h
// ("Across ranks"). Pure functions; internal to libfrugal.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "frugal/scheduler.h"
#include "scheduler/telemetry_check.hpp"

namespace frugal::scheduling {

// Whether a rank can take part in the step's decision.
enum class RankStatus : uint64_t {
  ok = 0,       // its record passed check_fields
  refused = 1,  // its record (or the step's arguments) was refused on that rank
  failed = 2,   // its scheduler failed earlier (a policy error, ranks that diverged)
};

// One rank's part of the step's all-gather: 14 words, 112 bytes, doubles
// as their bit patterns so every rank reduces the same bits.
struct RankPacket {
  RankStatus status = RankStatus::ok;
  frugal_telemetry record{};
  uint64_t digest = 0;  // what the rank decided last (see StepDigest); 0 before any step
};

inline constexpr std::size_t kPacketWords = 14;
using PacketWords = std::array<uint64_t, kPacketWords>;

[[nodiscard]] PacketWords pack(const RankPacket& packet) noexcept;
[[nodiscard]] RankPacket unpack(std::span<const uint64_t, kPacketWords> words) noexcept;

// The job's record from every rank's record (each passed check_fields),
// rank 0 first: step agreed, tokens summed, the loss weighted by tokens,
// the latest clock, the heaviest checkpoint and longest stall (with
// several ranks at most the interval since `previous`, with check_order's
// slack), the shortest
// notice, rank 0's nodes, price and resource class. Throws
// FRUGAL_ERR_INVALID_ARGUMENT when the ranks report different steps or the
// tokens overflow. One record gives itself back, bit for bit (its loss
// read as 0 when it has none, as policies see it).
[[nodiscard]] frugal_telemetry reduce_records(std::span<const frugal_telemetry> ranks, const PreviousRecord& previous);

// A checksum of one step's outcome (the decision, its reason, the ledger),
// compared across ranks at the next step.
[[nodiscard]] uint64_t step_digest(const frugal_decision& decision, const std::string& reason,
                                   const frugal_cost_ledger& ledger) noexcept;

}  // namespace frugal::scheduling
