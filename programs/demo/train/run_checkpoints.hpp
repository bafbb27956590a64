// A run's checkpoints, through frugal only: the "fs" store strategy under
// OUT/<run>/store and a checkpoint engine with two registered tensors (the
// parameters and the AdamW moments) and the registered states of the
// trainer (its routers, quantizers, scheduler, data cursor and counters),
// all in every kind: this model is small enough that a heartbeat carries
// the whole state, which is what makes a resume from a heartbeat exact.
// The engine saves, versions, checksums and restores each state; no
// checkpoint carries host metadata.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "frugal/frugal.h"
#include "frugal/sdk/host.hpp"

namespace frugal_demo {

struct SaveOutcome {
  std::string name;    // the checkpoint's name in the store
  double stall_s = 0;  // real seconds the training thread waited
};

struct RestoredCheckpoint {
  std::string name;
  bool emergency = false;
};

// A piece of host state saved with the checkpoints: `save` runs on each
// save (on the saving thread), `restore` on each restore with the bytes
// `save` gave. `restore` throws to fail the restore.
struct HostState {
  std::function<std::vector<std::uint8_t>()> save;
  std::function<void(std::span<const std::uint8_t>)> restore;
};

class RunCheckpoints {
 public:
  // Borrows the two spans: they must outlive this object and keep their size.
  RunCheckpoints(frugal_context* context, const std::filesystem::path& store_root, std::span<float> parameters,
                 std::span<float> optimizer_state);

  // States saved and restored with the tensors, in every kind, under
  // `name`; restored in registration order. The objects are borrowed: they
  // must outlive this object. Throws frugal::host::Exception (a name taken).
  void register_router(const std::string& name, frugal_router* router);
  void register_quantizer(const std::string& name, frugal_quantizer* quantizer);
  void register_scheduler(const std::string& name, frugal_scheduler* scheduler);
  void register_state(const std::string& name, HostState state);

  // The newest checkpoint that verifies, restored into the registered
  // tensors and states; nullopt when the store holds none (a fresh run).
  // Throws when the checkpoint lacks a registered state: a resume needs
  // every one of them.
  std::optional<RestoredCheckpoint> restore_latest();

  // kind: FRUGAL_CKPT_HEARTBEAT or FRUGAL_CKPT_FULL. blocking: persist
  // before returning (the stall then includes the write); otherwise only
  // the snapshot stalls and the engine writes in the background.
  SaveOutcome save(std::int32_t kind, std::uint64_t step, bool blocking);

  // An emergency heartbeat on a preemption notice, committed within
  // deadline_s or reported as not committed.
  struct Emergency {
    std::string name;
    bool committed = false;
    double seconds = 0;
  };
  Emergency emergency_save(std::uint64_t step, double deadline_s);

  // Waits for the background persist; throws when it failed.
  void wait();

 private:
  // Host states, at stable addresses: the engine holds a pointer to each.
  std::vector<std::unique_ptr<HostState>> host_states_;
  frugal::host::StorePtr store_;
  frugal::host::CkptEnginePtr engine_;
  std::vector<std::int64_t> parameter_shape_, optimizer_shape_;
};

}  // namespace frugal_demo
