// The frugal-demo command line: what a user may ask for, parsed and
// checked before anything runs. The worker processes the supervisor starts
// get the same options back (plus --worker RUN), so each attempt rebuilds
// exactly the plan its parent ran.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "command_args.hpp"
#include "demo_spec.hpp"

namespace frugal_demo {

// A bad command line (the tools' parser, support/args, throws it too); main
// prints it (demo_usage_error) and exits 2.
using UsageError = frugal::args::UsageError;

struct DemoOptions {
  std::filesystem::path out = "frugal-demo-out";
  bool quick = false;
  std::optional<double> budget_s;  // per run, real seconds; unset: the mode's default
  std::uint64_t seed = 1;
  int threads = 0;                            // 0: the plan's default (at most 2)
  std::vector<std::filesystem::path> corpus;  // empty: the embedded default
  bool preempt = true;
  bool help = false;
  std::string worker;  // hidden: "" (supervisor) or the run this process trains
  int attempt = 0;     // hidden: which attempt of that run (0 first, +1 per restart)
};

// Throws UsageError naming the option and what is wrong with it.
DemoOptions parse_demo_options(const std::vector<std::string>& args);

// The arguments that make a worker rebuild these options (for exec).
std::vector<std::string> worker_arguments(const DemoOptions& options, const std::string& run, int attempt);

}  // namespace frugal_demo
