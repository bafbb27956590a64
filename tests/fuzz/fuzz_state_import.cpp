// Every state import: the scheduler's (with each policy's state inside),
// the quantizer's per recipe, the router's per kind, and the loss
// scaler's (as its struct and as its byte format), from bytes. The first input byte picks the configuration
// (state_targets.hpp), the rest is the blob. In the fuzzing build
// checksums are not enforced, so mutations reach the field checks.
//
// Beyond "no crash": an accepted state must survive what a host does next
// (steps, quantizations, bias updates, each checked by the target), and a
// refused import must leave the object as it was: its export is unchanged.
#include <cstdint>
#include <vector>

#include "fuzz_support.hpp"
#include "state_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using frugal::fuzz::finding;
  if (size == 0) return 0;
  const size_t index = data[0] % frugal::fuzz::state_target_count();
  auto target = frugal::fuzz::make_state_target(index);
  target->exercise();
  const std::vector<uint8_t> before = target->export_state();
  const std::vector<uint8_t> blob(data + 1, data + size);
  if (target->import_state(blob)) {
    target->exercise();
    const std::vector<uint8_t> again = target->export_state();
    if (!again.empty() && !target->import_state(again)) finding("an object refused its own exported state");
  } else if (target->export_state() != before) {
    finding("a refused import changed the object's state (configuration " + std::to_string(index) + ")");
  }
  return 0;
}
