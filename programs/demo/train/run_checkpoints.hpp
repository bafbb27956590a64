// A run's checkpoints, through frugal only: the "fs" store strategy under
// OUT/<run>/store and a checkpoint engine with two registered tensors (the
// parameters and the AdamW moments, in every kind: this model is small
// enough that a heartbeat carries the whole state, which is what makes a
// resume from a heartbeat exact) plus the host metadata blob.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "frugal/frugal.h"
#include "frugal/sdk/host.hpp"

namespace frugal_demo {

struct SaveOutcome {
  std::string name;       // the checkpoint's name in the store
  double stall_s = 0;     // real seconds the training thread waited
};

struct RestoredCheckpoint {
  std::string name;
  bool emergency = false;
  std::vector<std::uint8_t> metadata;
};

class RunCheckpoints {
 public:
  // Borrows the two spans: they must outlive this object and keep their size.
  RunCheckpoints(frugal_context* context, const std::filesystem::path& store_root, std::span<float> parameters,
                 std::span<float> optimizer_state);

  // The newest checkpoint that verifies, restored into the registered
  // tensors; nullopt when the store holds none (a fresh run).
  std::optional<RestoredCheckpoint> restore_latest();

  // kind: FRUGAL_CKPT_HEARTBEAT or FRUGAL_CKPT_FULL. blocking: persist
  // before returning (the stall then includes the write); otherwise only
  // the snapshot stalls and the engine writes in the background.
  SaveOutcome save(std::int32_t kind, std::uint64_t step, std::span<const std::uint8_t> metadata, bool blocking);

  // An emergency heartbeat on a preemption notice, committed within
  // deadline_s or reported as not committed.
  struct Emergency {
    std::string name;
    bool committed = false;
    double seconds = 0;
  };
  Emergency emergency_save(std::uint64_t step, std::span<const std::uint8_t> metadata, double deadline_s);

  // Waits for the background persist; throws when it failed.
  void wait();

 private:
  frugal::host::StorePtr store_;
  frugal::host::CkptEnginePtr engine_;
  std::vector<std::int64_t> parameter_shape_, optimizer_shape_;
};

}  // namespace frugal_demo
