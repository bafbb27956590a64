#include "demo_spec.hpp"

#include "help_text.hpp"

namespace frugal_demo {

const frugal::args::Spec& demo_spec() {
  using frugal::args::switch_flag;
  using frugal::args::value_flag;
  static const frugal::args::Spec spec{
      "frugal-demo",
      "the main job: train a tiny MoE language model twice (a padded dense fp32 baseline, then the frugal "
      "plan) and report the savings",
      "Trains a tiny transformer language model twice on CPU, on the same text and for the same wall time: a "
      "baseline plan (padded batches, dense FFN, fp32, blocking checkpoints, reserved nodes) and the frugal plan "
      "(packed batches, MoE FFN, FP8 fake-quant training, scheduler-driven LR, heartbeats, spot capacity with "
      "injected preemptions). Prints the savings and writes a plot.",
      {},
      {value_flag("--out", "DIR",
                  "where the runs' files go (default ./frugal-demo-out); a previous demo output there is replaced"),
       switch_flag("--quick", "a short version (under a minute; what CI runs)"),
       value_flag("--budget-s", "S", "wall-clock seconds per run (default 18 quick, 200 full)"),
       value_flag("--seed", "N", "model and data seed (default 1)"),
       value_flag("--threads", "N", "threads per run, 1 to 64 (default: 2, or 1 on a single core)"),
       frugal::args::repeatable(value_flag("--corpus", "PATH",
                                           "a text file or directory to train on (repeatable; default "
                                           "/usr/share/common-licenses)")),
       switch_flag("--no-preempt", "inject no preemptions into the frugal run"),
       // The supervisor passes these to the worker processes it starts.
       frugal::args::hidden(value_flag("--worker", "RUN", "the run this process trains: baseline or frugal")),
       frugal::args::hidden(value_flag("--attempt", "N", "which attempt of that run, 0 to 1000"))}};
  return spec;
}

std::string demo_usage() { return frugal::args::help_text(demo_spec()); }

std::string demo_usage_error(const std::string& message) {
  return frugal::args::usage_error_text(demo_spec(), message);
}

}  // namespace frugal_demo
