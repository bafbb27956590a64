#include "demo_options.hpp"

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

namespace {}  // namespace

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
