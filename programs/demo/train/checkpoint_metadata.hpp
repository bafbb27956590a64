// The host metadata every demo checkpoint carries next to its two tensors
// (parameters, AdamW moments): everything else a resumed attempt needs to
// continue exactly where the checkpoint was taken. A small versioned blob;
// the checkpoint engine checksums it, this format only has to say what
// it is and refuse what it is not.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace frugal_demo {

struct CheckpointMetadata {
  std::uint64_t step = 0;        // optimizer steps done
  std::int64_t adam_steps = 0;   // AdamW's own count (bias correction)
  std::int64_t tokens = 0;       // real tokens trained so far (telemetry)
  double last_loss = 0;          // training loss of the last step
  std::uint32_t resource = 0;    // frugal_resource_class the job was running on
  std::vector<std::uint8_t> data_cursor;      // BatchSource::cursor()
  std::vector<std::uint8_t> router_state;     // empty without MoE
  std::vector<std::uint8_t> quant_state;      // empty without FP8
  std::vector<std::uint8_t> scheduler_state;  // frugal_scheduler_export_state
};

std::vector<std::uint8_t> encode_checkpoint_metadata(const CheckpointMetadata& metadata);

// Throws std::runtime_error naming what is wrong (magic, version, a
// truncated field, trailing bytes).
CheckpointMetadata decode_checkpoint_metadata(std::span<const std::uint8_t> bytes);

}  // namespace frugal_demo
