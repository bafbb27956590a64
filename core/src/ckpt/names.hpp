// Checkpoint names: "<kind>-<step>-<sequence>", e.g. "full-000000001200-00000007".
// The sequence is the engine-wide write order and decides which is newest;
// the step and kind are in the name so a listing needs no manifest reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace frugal::ckpt {

struct CheckpointId {
  std::string name;
  int32_t kind = 0;
  uint64_t step = 0;
  uint64_t sequence = 0;
};

std::string format_checkpoint_name(int32_t kind, uint64_t step, uint64_t sequence);

// How every checkpoint name starts, one entry per kind. Listing the store
// under prefix + each of these (not the whole prefix) keeps a listing to
// the checkpoints' own keys: a prefix that is a big directory tree (a
// store root pointed at /usr/share) is not walked.
inline constexpr std::string_view kCheckpointNameStarts[] = {"hb-", "full-"};

// nullopt for anything that is not a checkpoint name (foreign keys in the store).
std::optional<CheckpointId> parse_checkpoint_name(std::string_view name);

}  // namespace frugal::ckpt
