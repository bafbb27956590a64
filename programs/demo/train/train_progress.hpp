// The trainer's own counters, saved in every demo checkpoint as the
// registered state "train/progress" (beside the tensors, the data cursor,
// the routers, quantizers and the scheduler, each registered with the
// engine on its own): what a resumed attempt needs besides them to continue
// exactly where the checkpoint was taken. A state blob of the SDK
// (frugal/sdk/state_blob.hpp: magic, version, checksum); the engine
// versions and checksums the checkpoint around it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace frugal_demo {

struct TrainProgress {
  std::uint64_t step = 0;       // optimizer steps done
  std::int64_t adam_steps = 0;  // AdamW's own count (bias correction)
  std::int64_t tokens = 0;      // real tokens trained so far (telemetry)
  double last_loss = 0;         // training loss of the last step
  std::int32_t resource = 0;    // frugal_resource_class_values: what the job was running on
};

std::vector<std::uint8_t> encode_train_progress(const TrainProgress& progress);

// Throws frugal::sdk::PluginError (a std::exception) or std::runtime_error
// naming what is wrong: magic, version, checksum, a field out of range,
// trailing bytes.
TrainProgress decode_train_progress(std::span<const std::uint8_t> bytes);

}  // namespace frugal_demo
