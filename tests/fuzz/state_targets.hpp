// The objects whose exported state fuzz_state_import feeds back, shared
// with its seed generator: every built-in configuration whose state has a
// different shape (each policy alone and all together behind a scheduler,
// each quantization recipe, each router, the loss scaler as its struct and
// as its byte format), and what a host does with such an object after an
// import (a few steps, quantizations or bias updates), so a state that
// imports but breaks the next call is found too.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frugal/frugal.h"

namespace frugal::fuzz {

// One live object of one configuration.
class StateTarget {
 public:
  virtual ~StateTarget() = default;
  // The object's state blob; empty when the export failed.
  virtual std::vector<uint8_t> export_state() = 0;
  // True when the object accepted the blob.
  virtual bool import_state(const std::vector<uint8_t>& blob) = 0;
  // Uses the object as a host would between checkpoints.
  virtual void exercise() = 0;
};

// The number of configurations, and one of them, freshly created.
size_t state_target_count();
std::unique_ptr<StateTarget> make_state_target(size_t index);

}  // namespace frugal::fuzz
