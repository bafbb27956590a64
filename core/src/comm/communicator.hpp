// A communicator: one FRUGAL_KIND_COMM strategy instance (this rank's end
// of a group), with the checks in front of every collective, the deadline
// each call carries, and the broken state a failed collective leaves.
// Internal to libfrugal.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "comm/call_check.hpp"
#include "frugal/comm_vtable.h"
#include "loaded_plugin.hpp"
#include "strategy_instance.hpp"

namespace frugal {

class Communicator {
 public:
  // Joins the group of strategy `record` of `plugin` (collective); throws.
  Communicator(std::shared_ptr<LoadedPlugin> plugin, const StrategyRecord& record, const frugal_options* options,
               std::string label);

  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  // Collective: this rank's sub-group, or nullptr for FRUGAL_COMM_COLOR_NONE.
  std::shared_ptr<Communicator> split(int32_t color, int32_t key);

  // Checks and runs one collective. `extents` are the buffers' element
  // counts where the caller knows them. A NULL stream takes the comm's.
  void run(frugal_comm_call call, const comm::Extents& extents);

  [[nodiscard]] const frugal_comm_info& info() const noexcept { return info_; }
  void set_timeout(int64_t timeout_ms);
  // The deadline of each call, in milliseconds (set_timeout).
  [[nodiscard]] int64_t timeout_ms();
  void set_stream(void* stream);
  [[nodiscard]] const std::string& label() const noexcept { return instance_.label(); }

 private:
  struct Adopt {};
  // A sub-group's instance made by split.
  Communicator(Adopt, const Communicator& parent, void* instance);

  void describe();
  // Holds mutex_ for one call; refuses a call made from inside a call on
  // this comm (a backend using its own comm would deadlock).
  class CallLock;

  std::shared_ptr<LoadedPlugin> plugin_;
  const StrategyRecord* record_;
  StrategyInstance<frugal_comm_vtable> instance_;
  frugal_comm_info info_{};
  std::mutex mutex_;
  std::atomic<std::thread::id> owner_{};
  int64_t timeout_ms_ = FRUGAL_COMM_DEFAULT_TIMEOUT_MS;
  void* stream_ = nullptr;
  std::string broken_;  // the first failure that left the group out of step; empty while healthy
};

}  // namespace frugal

struct frugal_comm {
  std::shared_ptr<frugal::Communicator> impl;
};
