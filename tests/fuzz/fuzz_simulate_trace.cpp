// libFuzzer target: bytes -> every `frugal simulate` trace reader (as
// --trace-format auto, skypilot, aws and csv would read them) and the loss
// log reader; a trace that reads is then queried as the engine queries it
// (availability, next changes, price integrals) at times across and beyond
// its period. The documented error for bad input is simulate::InputError;
// any other exception, a crash, a sanitizer report, a hang or unbounded
// memory is a finding.
//
// Built and run by scripts/fuzz.sh (docs/fuzzing.md), seeds in
// tests/fuzz/corpus/fuzz_simulate_trace/.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "input_error.hpp"
#include "job.hpp"
#include "loss_model.hpp"
#include "trace_readers.hpp"

namespace {

using frugal::simulate::TraceFormat;

void query(const frugal::simulate::Trace& trace) {
  const double period = trace.period_s();
  for (const double t : {0.0, period * 0.5, period, period * 1.5, period * 1000.0, 1e9}) {
    (void)trace.available_at(t);
    (void)trace.next_unavailable(t);
    (void)trace.next_available(t);
    (void)trace.mean_price(t, t + 3600.0);
  }
  (void)trace.available_share();
  (void)trace.period_mean_price();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const TraceFormat format :
       {TraceFormat::kAuto, TraceFormat::kSkyPilot, TraceFormat::kAws, TraceFormat::kSimpleCsv}) {
    try {
      query(frugal::simulate::parse_trace(text, "fuzz.trace", format, {}));
    } catch (const frugal::simulate::InputError&) {
      // Refused with a message: the expected outcome for most inputs.
    }
  }
  try {
    frugal::simulate::LossSpec spec;
    spec.kind = frugal::simulate::LossSpec::Kind::kLog;
    frugal::simulate::read_loss_log(text, "fuzz.csv", spec);
    for (const double step : {0.0, 1.0, spec.log_steps.back(), spec.log_steps.back() + 1.0})
      (void)frugal::simulate::loss_at(spec, 0.0, step);
  } catch (const frugal::simulate::InputError&) {
  }
  return 0;
}
