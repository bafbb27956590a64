// libFuzzer target: bytes -> the `frugal simulate` job reader, as the CLI
// reads a --job file (parse_job with the built-in strategy names unchecked),
// then the event budget the CLI checks before any run. The documented error
// for bad input is simulate::InputError; any other exception, a crash, a
// sanitizer report, a hang or unbounded memory is a finding.
//
// A job whose loss model is "log" names a file to read: those are read as
// JSON only (the loss log parser has its own target, fuzz_simulate_trace),
// so that the fuzzer never makes the reader open paths of this machine.
//
// Built and run by scripts/fuzz.sh (docs/fuzzing.md), seeds in
// tests/fuzz/corpus/fuzz_simulate_job/.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "event_budget.hpp"
#include "input_error.hpp"
#include "job_reader.hpp"
#include "json_input.hpp"

namespace {

bool names_a_loss_log(const frugal::simulate::JsonValue& root) {
  const frugal::simulate::JsonValue* loss = frugal::simulate::json_member(root, "loss");
  const frugal::simulate::JsonValue* model = loss != nullptr ? frugal::simulate::json_member(*loss, "model") : nullptr;
  return model != nullptr && model->is_string() && *model == "log";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    if (names_a_loss_log(frugal::simulate::parse_json(text, "fuzz.json"))) return 0;
    const frugal::simulate::Job job = frugal::simulate::parse_job(text, "fuzz.json", "", {});
    for (const auto& plan : job.plans) {
      (void)frugal::simulate::estimate_run_events(job, plan, nullptr);
      (void)frugal::simulate::plan_total_steps(job, plan);
    }
    frugal::simulate::check_event_budget(job, nullptr, 200);
  } catch (const frugal::simulate::InputError&) {
    // Refused with a message: the expected outcome for most inputs.
  }
  return 0;
}
