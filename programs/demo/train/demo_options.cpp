#include "demo_options.hpp"

#include "help_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

namespace frugal_demo {
namespace {

std::uint64_t parse_unsigned(const std::string& option, const std::string& text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size())
    throw UsageError("option " + option + ": '" + text + "' is not a non-negative integer");
  return value;
}

double parse_seconds(const std::string& option, const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(value) || value <= 0)
    throw UsageError("option " + option + ": '" + text + "' is not a positive number of seconds");
  return value;
}

}  // namespace

namespace {

const frugal::args::Spec& demo_spec() {
  using frugal::args::switch_flag;
  using frugal::args::value_flag;
  static const frugal::args::Spec spec{
      "frugal-demo",
      "train a tiny MoE language model twice and report the savings",
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

}  // namespace

std::string demo_usage() { return frugal::args::help_text(demo_spec()); }

DemoOptions parse_demo_options(const std::vector<std::string>& args) {
  // The tools' one parser (support/args) splits the line and words its errors;
  // the values are checked here.
  const auto parsed = frugal::args::parse(args, demo_spec());
  DemoOptions options;
  if (parsed.help) {
    options.help = true;
    return options;
  }
  if (!parsed.positional.empty()) throw UsageError("unexpected argument '" + parsed.positional.front() + "'");
  options.quick = parsed.has("--quick");
  options.preempt = !parsed.has("--no-preempt");
  if (const auto dir = parsed.value("--out")) {
    if (dir->empty()) throw UsageError("option --out: the directory name is empty");
    options.out = *dir;
  }
  if (const auto text = parsed.value("--budget-s")) options.budget_s = parse_seconds("--budget-s", *text);
  if (const auto text = parsed.value("--seed")) options.seed = parse_unsigned("--seed", *text);
  if (const auto text = parsed.value("--threads")) {
    const std::uint64_t threads = parse_unsigned("--threads", *text);
    if (threads < 1 || threads > 64) throw UsageError("option --threads: '" + *text + "' is not in 1..64");
    options.threads = static_cast<int>(threads);
  }
  for (const auto& path : parsed.all("--corpus")) {
    if (path.empty()) throw UsageError("option --corpus: the path is empty");
    options.corpus.emplace_back(path);
  }
  if (const auto run = parsed.value("--worker")) {
    if (*run != "baseline" && *run != "frugal")
      throw UsageError("option --worker: '" + *run + "' is not a run (baseline or frugal)");
    options.worker = *run;
  }
  if (const auto text = parsed.value("--attempt")) {
    const std::uint64_t attempt = parse_unsigned("--attempt", *text);
    if (attempt > 1000) throw UsageError("option --attempt: '" + *text + "' is not in 0..1000");
    options.attempt = static_cast<int>(attempt);
  }
  return options;
}

std::vector<std::string> worker_arguments(const DemoOptions& options, const std::string& run, int attempt) {
  std::vector<std::string> args{"--worker",  run,
                                "--attempt", std::to_string(attempt),
                                "--out",     options.out.string(),
                                "--seed",    std::to_string(options.seed)};
  if (options.quick) args.emplace_back("--quick");
  if (options.budget_s) {
    // Round-trip exactly: the worker must compute the same plan.
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", *options.budget_s);
    args.insert(args.end(), {"--budget-s", text});
  }
  if (options.threads > 0) args.insert(args.end(), {"--threads", std::to_string(options.threads)});
  for (const auto& path : options.corpus) args.insert(args.end(), {"--corpus", path.string()});
  if (!options.preempt) args.emplace_back("--no-preempt");
  return args;
}

}  // namespace frugal_demo
