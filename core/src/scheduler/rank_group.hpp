// The ranks a scheduler decides for (frugal_scheduler_config.comm, ABI
// 2.4): a private sub-group split from the host's comm at create, so the
// scheduler's collectives never meet the host's, and the one collective a
// step makes on it. The host's handle is not kept. Internal to libfrugal.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "frugal/types.h"

namespace frugal::scheduling {

class RankGroup {
 public:
  // Collective over `host`: splits the sub-group (it keeps the host comm's
  // deadline). A comm that does not take host memory is INVALID_ARGUMENT,
  // refused before any collective.
  explicit RankGroup(frugal_comm* host);
  ~RankGroup();
  RankGroup(const RankGroup&) = delete;
  RankGroup& operator=(const RankGroup&) = delete;

  [[nodiscard]] int32_t rank() const noexcept { return rank_; }
  [[nodiscard]] int32_t size() const noexcept { return size_; }

  // Every rank's `mine` (the same count on each), rank by rank. `what`
  // names the exchange in an error: the comm's own error (IO for a dead
  // rank, DEADLINE_EXCEEDED for one that never called, FAILED_PRECONDITION
  // once the sub-group is broken), prefixed with the scheduler's ranks.
  [[nodiscard]] std::vector<uint64_t> all_gather(std::span<const uint64_t> mine, const std::string& what);

 private:
  frugal_comm* comm_ = nullptr;
  int32_t rank_ = 0;
  int32_t size_ = 1;
};

}  // namespace frugal::scheduling
