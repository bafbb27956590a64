// A packer strategy instance with its limits: runs the plugin's pack slot
// and checks what it returns. Shared by a frugal_packer and the streams
// made from it (which may outlive it). Internal to libfrugal.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "frugal/packer_vtable.h"
#include "loaded_plugin.hpp"
#include "packer/pack_limits.hpp"
#include "packer/uninit_vector.hpp"
#include "strategy_instance.hpp"

namespace frugal::pack {

// A checked assignment: every unit exactly once, packs within limits.
struct Assignment {
  I64Vec units;         // unit indices grouped by pack
  I64Vec pack_offsets;  // packs + 1
  I64Vec unit_lengths;  // lengths[units[k]]: gathered while checking, which reads them anyway
  std::string method;   // who produced it ("ffd", ...)
};

class PackerCore {
 public:
  PackerCore(std::shared_ptr<LoadedPlugin> plugin, const StrategyRecord& record, std::string strategy,
             const Limits& limits);

  // Creates the plugin instance with the strategy's own options (checked
  // against its declarations first).
  void create_instance(const frugal_options* strategy_options);

  // Packs units of `lengths` (each in [1, max_len], at least one).
  [[nodiscard]] Assignment pack(std::span<const int64_t> lengths) const;

  [[nodiscard]] const Limits& limits() const noexcept { return limits_; }
  [[nodiscard]] const std::string& label() const noexcept { return instance_.label(); }

 private:
  void check(std::span<const int64_t> lengths, Assignment& a) const;

  std::string strategy_;
  StrategyInstance<frugal_packer_vtable> instance_;  // labelled "packer 'packer_seq'"
  Limits limits_;
};

}  // namespace frugal::pack
