// The ranks of a job that save and restore checkpoints together (an
// engine created with a `comm` option): two private sub-groups split from
// the host's comm at create, one for the calling thread (the agreements of
// save and restore) and one for the engine's background thread (the
// two-phase commit), so the engine's collectives never meet the host's nor
// each other. Every call is a collective of the group: each rank makes the
// same calls in the same order, and a rank that does not (dead, stalled)
// turns into an error on the others within the comm's timeout.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "frugal/comm.h"

namespace frugal::ckpt {

// One private sub-group and the collectives the engine needs on it.
class GroupComm {
 public:
  explicit GroupComm(frugal_comm* comm) : comm_(comm) {}
  ~GroupComm();
  GroupComm(const GroupComm&) = delete;
  GroupComm& operator=(const GroupComm&) = delete;

  [[nodiscard]] int32_t rank() const;
  [[nodiscard]] int32_t size() const;
  // True on every rank when `mine` is true on any.
  [[nodiscard]] bool any(bool mine);
  // Every rank's `mine` (the same count on each), rank by rank.
  [[nodiscard]] std::vector<int64_t> all_gather(std::span<const int64_t> mine);
  // Every rank's bytes (any length each), rank by rank.
  [[nodiscard]] std::vector<std::vector<uint8_t>> all_gather_bytes(const std::vector<uint8_t>& mine);
  // Rank 0's `text` on every rank.
  [[nodiscard]] std::string broadcast_text(const std::string& text);

  // While it lives, the group's calls end by `deadline` at the latest (an
  // emergency save's window; at least 1 ms each), then the comm's own
  // timeout again. nullopt changes nothing.
  class Deadline {
   public:
    Deadline(GroupComm& group, std::optional<std::chrono::steady_clock::time_point> deadline);
    ~Deadline();
    Deadline(const Deadline&) = delete;
    Deadline& operator=(const Deadline&) = delete;

   private:
    GroupComm& group_;
    std::optional<int64_t> previous_ms_;
  };

 private:
  frugal_comm* comm_;
};

class JobGroup {
 public:
  // Collective over `host`: splits the two sub-groups.
  explicit JobGroup(frugal_comm* host);

  [[nodiscard]] int32_t rank() const { return caller_->rank(); }
  [[nodiscard]] int32_t size() const { return caller_->size(); }
  // For save and restore, on the thread that calls them.
  GroupComm& caller() { return *caller_; }
  // For the background thread's commit.
  GroupComm& worker() { return *worker_; }

 private:
  std::unique_ptr<GroupComm> caller_;
  std::unique_ptr<GroupComm> worker_;
};

}  // namespace frugal::ckpt
