// `frugal simulate [--job FILE] [--trace FILE] ...` (its options:
// simulate_spec below): replays a job against availability / price
// traces or Monte-Carlo preemptions, with a real run scheduler and its
// policies in the loop, and compares plans by cost, wall time and lost
// work (docs/simulate.md).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "../ckpt_args.hpp"
#include "../commands.hpp"
#include "event_budget.hpp"
#include "frugal/sdk/host.hpp"
#include "input_error.hpp"
#include "job_reader.hpp"
#include "progress_bar.hpp"
#include "report.hpp"
#include "simulation.hpp"
#include "trace_readers.hpp"
#include "worked_example.hpp"

namespace frugal::cli {
namespace {

struct Flags {
  std::optional<std::string> job, trace, plot;
  simulate::TraceFormat format = simulate::TraceFormat::kAuto;
  simulate::TraceSelection selection;
  std::vector<std::string> plans;
  uint64_t runs = 200;
  uint64_t seed = 1;
  unsigned threads = 0;
  bool json = false;
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (out.back().empty()) throw UsageError(fmt::format("--plans: empty plan name in '{}'", text));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

Flags parse_flags(const std::vector<std::string>& args) {
  const ParsedArgs parsed = parse_args(args, simulate_spec());
  if (!parsed.positional.empty()) throw UsageError(fmt::format("unexpected argument '{}'", parsed.positional[0]));
  Flags flags;
  flags.job = parsed.value("--job");
  flags.trace = parsed.value("--trace");
  flags.plot = parsed.value("--plot");
  flags.json = parsed.has("--json");
  if (auto v = parsed.value("--runs")) flags.runs = static_cast<uint64_t>(parse_int_flag("--runs", *v, 1, 10'000'000));
  if (auto v = parsed.value("--seed"))
    flags.seed = static_cast<uint64_t>(parse_int_flag("--seed", *v, 0, std::numeric_limits<int64_t>::max()));
  if (auto v = parsed.value("--threads"))
    flags.threads = static_cast<unsigned>(parse_int_flag("--threads", *v, 0, 1024));
  if (auto v = parsed.value("--plans")) flags.plans = split_list(*v);
  if (auto v = parsed.value("--trace-format")) {
    const auto format = simulate::trace_format_from_name(*v);
    if (!format) throw UsageError(fmt::format("--trace-format must be auto, skypilot, aws or csv, got '{}'", *v));
    flags.format = *format;
  }
  for (const char* name : {"--trace-format", "--zone", "--instance-type", "--product"})
    if (parsed.has(name) && !flags.trace) throw UsageError(fmt::format("{} needs --trace", name));
  flags.selection.zone = parsed.value("--zone").value_or("");
  flags.selection.instance_type = parsed.value("--instance-type").value_or("");
  flags.selection.product = parsed.value("--product").value_or("");
  return flags;
}

// Keeps only the plans named in --plans, in the job's order.
void select_plans(simulate::Job& job, const std::vector<std::string>& names) {
  if (names.empty()) return;
  std::string available;
  for (const auto& plan : job.plans) available += (available.empty() ? "" : ", ") + plan.name;
  for (const auto& name : names) {
    const bool found = std::any_of(job.plans.begin(), job.plans.end(), [&](const auto& p) { return p.name == name; });
    if (!found) throw UsageError(fmt::format("--plans: the job has no plan '{}' (it has: {})", name, available));
  }
  std::erase_if(job.plans, [&](const simulate::PlanSpec& p) {
    return std::find(names.begin(), names.end(), p.name) == names.end();
  });
}

void write_file(const std::string& path, const std::string& text) {
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr) throw simulate::InputError(fmt::format("cannot create '{}'", path));
  const bool ok = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  if (std::fclose(out) != 0 || !ok) throw simulate::InputError(fmt::format("cannot write '{}' (disk full?)", path));
}

}  // namespace

const args::Spec& simulate_spec() {
  using args::value_flag;
  static const args::Spec spec{
      "frugal simulate",
      "compare training plans (reserved, spot, spot then reserved, heartbeats, autoscaling) by cost, wall time and "
      "lost work over spot traces or Monte-Carlo preemptions",
      "Replays a job against availability / price traces or Monte-Carlo preemptions, with a real run scheduler and "
      "its policies in the loop, and compares its plans by cost, wall time and lost work (docs/simulate.md). Without "
      "--job, the built-in worked example.",
      {},
      {value_flag("--job", "FILE", "the job and its plans (JSON; default: the built-in worked example)"),
       value_flag("--trace", "FILE",
                  "replay a trace instead of Monte-Carlo preemptions: SkyPilot spot traces JSON, AWS spot price "
                  "history (JSON or CSV), or CSV rows time_s,available[,spot_price]"),
       value_flag("--trace-format", "F", "how to read --trace: auto (default: from its content), skypilot, aws, csv"),
       value_flag("--zone", "AZ", "which AWS price series to replay (default: the one with most rows)"),
       value_flag("--instance-type", "TYPE", "as --zone"), value_flag("--product", "TEXT", "as --zone"),
       value_flag("--runs", "N", "runs per plan, 1 to 10000000 (default 200); the table shows means"),
       value_flag("--seed", "S", "seed of the runs (default 1): the same seed gives the same output"),
       value_flag("--plans", "NAME,...", "simulate only these plans of the job"),
       value_flag("--threads", "N", "worker threads (default: all cores); results do not depend on it"),
       value_flag("--plot", "FILE.svg", "also write a plot of cost and wall time per plan (p10-p90 whiskers)"),
       args::switch_flag("--json", "machine-readable output: {\"plans\": [{\"name\", \"cost\", ...}], ...}")}};
  return spec;
}

int cmd_simulate(const std::vector<std::string>& args) {
  const bool json = has_word(args, "--json");
  if ((!args.empty() && args[0] == "help") || wants_help(args)) return print_help(simulate_spec());
  Flags flags;
  try {
    flags = parse_flags(args);
  } catch (const UsageError& e) {
    return report_error("simulate", "USAGE", e.what(), kExitUsage, json);
  }
  try {
    auto context = simulate::open_plugin_context();
    const simulate::KnownStrategies known = simulate::known_strategies(context.get());
    simulate::Job job = flags.job ? simulate::read_job_file(*flags.job, known) : simulate::worked_example_job(known);
    try {
      select_plans(job, flags.plans);
    } catch (const UsageError& e) {
      return report_error("simulate", "USAGE", e.what(), kExitUsage, json);
    }
    std::optional<simulate::Trace> trace;
    if (flags.trace) trace = simulate::read_trace_file(*flags.trace, flags.format, flags.selection);

    std::atomic<uint64_t> done{0}, events{0};
    simulate::MonteCarloOptions options;
    options.runs = flags.runs;
    options.seed = flags.seed;
    options.threads = flags.threads;
    options.progress = &done;
    options.events = &events;
    double expected_events = 0.0;
    for (const auto& plan : job.plans)
      expected_events +=
          simulate::estimate_run_events(job, plan, trace ? &*trace : nullptr).total() * static_cast<double>(flags.runs);
    simulate::Simulation sim;
    {
      const simulate::ProgressBar bar(done, flags.runs * job.plans.size(), events, expected_events);
      sim = simulate::simulate(context.get(), job, trace ? &*trace : nullptr, options);
    }
    const std::string text = flags.json ? simulate::format_json(sim.report) : simulate::format_table(sim.report);
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (flags.plot) write_file(*flags.plot, simulate::format_svg(sim.report));
    return kExitOk;
  } catch (const simulate::InputError& e) {
    return report_error("simulate", "INVALID_ARGUMENT", e.what(), kExitProblem, json);
  } catch (const host::Exception& e) {
    // A scheduler or policy error during the runs.
    return report_error("simulate", frugal_error_code_name(e.code()), e.what(), kExitProblem, json);
  } catch (const std::bad_alloc&) {
    return report_error("simulate", "OUT_OF_MEMORY", "out of memory", kExitProblem, json);
  } catch (const std::runtime_error& e) {
    // An engine that cannot make progress: the inputs ran but failed.
    return report_error("simulate", "FAILED_PRECONDITION", e.what(), kExitProblem, json);
  }
}

}  // namespace frugal::cli
