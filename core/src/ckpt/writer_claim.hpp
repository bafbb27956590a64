// One writing engine per prefix, enforced with fencing generations. An
// engine claims the prefix before its first save: it writes a claim record
// "<prefix>writer-claims/gen-<generation>-<nonce>" with generation = the
// highest claimed + 1. From then on it checks, before each persist starts,
// before its manifest (the commit point) and before each retention removal,
// that no newer claim exists; once one does, it is fenced for good: it
// refuses every write and never removes anything again. The restarted job
// of a preempted one thus starts at once, and the old job (a zombie still
// persisting its emergency save) can no longer touch the prefix.
//
// Names stay unique across generations: each claim record also holds the
// highest sequence its writer reserved (updated before each persist writes
// anything), and a new claim starts its sequences past every reservation
// and every checkpoint in the store.
//
// The store has no compare-and-swap, so a check and the write after it are
// two calls: a newer claim made between them is seen by the next check,
// not by this write (see ARCHITECTURE.md, "Writers and fencing").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "error.hpp"
#include "store.hpp"

namespace frugal::ckpt {

class WriterClaim {
 public:
  WriterClaim(const Store& store, std::string prefix) : store_(store), prefix_(std::move(prefix)) {}

  [[nodiscard]] bool claimed() const { return !key_.empty(); }
  [[nodiscard]] uint64_t generation() const { return generation_; }

  // Claims the prefix. `highest_sequence` lists the store's checkpoints
  // (called after the claim is durable). Returns the first sequence this
  // writer may use. Throws FAILED_PRECONDITION if a newer claim won a race.
  uint64_t claim(const std::function<uint64_t()>& highest_sequence);

  // Throws FAILED_PRECONDITION (naming both generations and `what` was
  // refused) if a newer generation claimed the prefix; sticky.
  void check_current(const std::string& what);

  // Throws the fencing error if an earlier check found a newer claim; asks
  // the store nothing (cheap enough for every save).
  void refuse_if_fenced(const std::string& what) const;

  // Records `sequence` as reserved, then checks (as check_current) that the
  // prefix is still ours: a newer claimer scanning after this either sees
  // the reservation or its own claim fences us before we write anything.
  void reserve(uint64_t sequence, const std::string& what);

 private:
  uint64_t claim_once(const std::function<uint64_t()>& highest_sequence);
  [[nodiscard]] std::string claims_prefix() const { return prefix_ + "writer-claims/"; }
  void write_record(uint64_t reserved_through) const;
  [[nodiscard]] std::optional<std::string> newest_other_than_ours() const;  // a claim key ordered after ours
  [[noreturn]] void fence(const std::string& newer, const std::string& what);

  const Store& store_;
  std::string prefix_;
  std::string key_;  // our claim record; "" before claim()
  uint64_t generation_ = 0;
  std::optional<Error> fenced_;  // why every write is refused, once fenced
};

}  // namespace frugal::ckpt
