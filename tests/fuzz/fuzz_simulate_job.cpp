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
// Built by hand (from the repository root; the lead wires it into CMake):
//   S=sdk/cli/simulate; clang++-14 -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined \
//     -fno-sanitize-recover=undefined -Iabi/include -Isdk/include -I$S tests/fuzz/fuzz_simulate_job.cpp \
//     $S/json_value.cpp $S/json_fields.cpp $S/text_input.cpp $S/trace.cpp $S/trace_readers.cpp \
//     $S/trace_skypilot.cpp $S/trace_aws.cpp $S/trace_simple_csv.cpp $S/job.cpp $S/job_reader.cpp \
//     $S/option_values.cpp $S/standard_plans.cpp $S/plan_defaults.cpp $S/loss_model.cpp \
//     $S/event_budget.cpp -lfmt -o fuzz_simulate_job
//   ./fuzz_simulate_job -max_total_time=60 -rss_limit_mb=2048 -max_len=65536 NEW_DIR tests/fuzz/corpus/simulate_job
//   (new inputs go to NEW_DIR, an empty directory; the committed corpus is only read)
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "event_budget.hpp"
#include "input_error.hpp"
#include "job_reader.hpp"
#include "json_value.hpp"

namespace {

bool names_a_loss_log(const frugal::simulate::JsonValue& root) {
  const frugal::simulate::JsonValue* loss = root.find("loss");
  const frugal::simulate::JsonValue* model = loss != nullptr ? loss->find("model") : nullptr;
  return model != nullptr && model->is_string() && model->text == "log";
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
