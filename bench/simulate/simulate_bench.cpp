// simulate_bench: how long `frugal simulate` takes for 10,000 Monte-Carlo
// runs of the worked example's 400-hour job (plan A: 2 spot nodes, fixed-step
// checkpoints, a preemption every ~4.7 h) with a real run scheduler and the
// policy_cost plugin deciding every record, against the same event loop
// with a trivial in-process decision function (baseline_source.hpp).
// Baseline and frugal alternate, and so does their order (docs/benchmarks.md,
// "How we measure"); medians are reported, and the target is absolute:
// 10,000 runs in under 1 s.
//
// Exit status: 0 when the target is met (or --quick passed), 1 when it is
// missed or an invariant fails, 2 for a bad command line.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <exception>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "baseline_source.hpp"
#include "command_args.hpp"
#include "help_text.hpp"
#include "monte_carlo.hpp"
#include "report.hpp"
#include "simulation.hpp"
#include "worked_example.hpp"

namespace sim = frugal::simulate;
namespace bs = frugal::bench::simulate;

namespace {

const frugal::args::Spec& command_line() {
  using frugal::args::value_flag;
  static const frugal::args::Spec spec{
      "simulate_bench",
      "how long `frugal simulate` takes for 10,000 Monte-Carlo runs",
      "How long `frugal simulate` takes for 10,000 Monte-Carlo runs of the worked example's 400-hour job with a real "
      "run scheduler and policy_cost deciding every record, against the same event loop with a trivial decision "
      "function; the target is 10,000 runs in under 1 s. Exit status: 0 when the target is met (or --quick passed), "
      "1 when it is missed or an invariant fails, 2 for a bad command line.",
      {},
      {value_flag("--runs", "N", "Monte-Carlo runs per timing (default 10000)"),
       value_flag("--repeats", "R", "timings of each side, interleaved, 1 to 999 (default 5; medians reported)"),
       value_flag("--threads", "T", "worker threads, 0 to 1023 (default 0: all cores)"),
       value_flag("--plan", "NAME", "the worked example's plan to time (default A_16gpu_spot, the 400-hour job)"),
       value_flag("--breakdown-runs", "N", "runs per plan for the per-plan table (default 1000; 0: skip it)"),
       frugal::args::switch_flag("--quick",
                                 "200 runs, one repeat: books and determinism only (the ctest smoke test)")}};
  return spec;
}

constexpr double kTargetSeconds = 1.0;
constexpr uint64_t kTargetRuns = 10000;

struct Options {
  uint64_t runs = kTargetRuns;
  int repeats = 5;
  unsigned threads = 0;
  std::string plan = "A_16gpu_spot";
  uint64_t breakdown_runs = 1000;
  bool quick = false;
};

bool parse_number(std::string_view text, uint64_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

// CPU seconds of the whole process (all threads): on a shared machine the
// wall time also says how many cores the others left us.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Timing {
  double seconds = 0.0;
  double cpu = 0.0;
  double records = 0.0;  // mean records per run
  std::vector<std::vector<sim::RunResult>> results;
};

Timing time_runs(const sim::Job& job, const sim::SourceFactory& factory, uint64_t runs, unsigned threads,
                 bool check_books) {
  sim::MonteCarloOptions options;
  options.runs = runs;
  options.threads = threads;
  options.check_books = check_books;
  Timing t;
  const double cpu_start = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  t.results = sim::run_monte_carlo(job, nullptr, factory, options);
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  t.cpu = cpu_seconds() - cpu_start;
  double records = 0.0;
  for (const auto& r : t.results[0]) records += static_cast<double>(r.records);
  t.records = records / static_cast<double>(runs);
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

sim::SourceFactory baseline_factory(const sim::Job& job) {
  return [&job](size_t plan) -> std::unique_ptr<sim::DecisionSource> {
    return std::make_unique<bs::BaselineSource>(bs::baseline_every_steps(job, job.plans[plan]));
  };
}

// Same seed, same results: compares what the report is made of.
bool same_results(const Timing& a, const Timing& b) {
  for (size_t p = 0; p < a.results.size(); ++p)
    for (size_t r = 0; r < a.results[p].size(); ++r)
      if (a.results[p][r].dollars != b.results[p][r].dollars || a.results[p][r].wall_s != b.results[p][r].wall_s)
        return false;
  return true;
}

sim::Job single_plan(sim::Job job, const std::string& name) {
  std::erase_if(job.plans, [&](const sim::PlanSpec& p) { return p.name != name; });
  if (job.plans.empty()) throw std::runtime_error("the worked example has no plan '" + name + "'");
  return job;
}

// The headline: `runs` runs of one plan, frugal against the baseline.
bool headline(frugal_context* context, const sim::Job& job, const Options& o, unsigned threads) {
  const auto configs = sim::plan_configs(context, job);
  const auto frugal = sim::scheduler_factory(context, configs);
  const auto baseline = baseline_factory(job);
  std::vector<double> frugal_s, baseline_s, frugal_cpu, baseline_cpu;
  Timing first;
  bool deterministic = true;
  for (int i = 0; i < o.repeats; ++i) {
    // Alternate which side goes first, so drift hits both alike.
    for (int side = 0; side < 2; ++side) {
      const bool frugal_side = (side == 0) == (i % 2 == 1);
      Timing t = time_runs(job, frugal_side ? frugal : baseline, o.runs, threads, frugal_side);
      (frugal_side ? frugal_cpu : baseline_cpu).push_back(t.cpu);
      if (frugal_side) {
        frugal_s.push_back(t.seconds);
        if (i == 0)
          first = std::move(t);
        else
          deterministic = deterministic && same_results(first, t);
      } else {
        baseline_s.push_back(t.seconds);
      }
    }
  }
  const double f = median(frugal_s), b = median(baseline_s);
  const double per_run = 1e6 * f / static_cast<double>(o.runs);
  fmt::print("simulate_bench: {} Monte-Carlo runs of plan {} ({:.0f}-hour job), {} threads, {} repeats per side\n",
             o.runs, job.plans[0].name, sim::summarize(job.plans[0], first.results[0]).wall_h.mean, threads, o.repeats);
  fmt::print("  records per run (mean)              {:.1f}\n", first.records);
  fmt::print("  baseline (in-process decisions)     median {:.3f} s  ({:.1f} us/run)  samples {}\n", b,
             1e6 * b / static_cast<double>(o.runs), fmt::join(baseline_s, " "));
  fmt::print("  frugal (scheduler + policy_cost)    median {:.3f} s  ({:.1f} us/run, {:.0f} ns/record)  samples {}\n",
             f, per_run, 1e3 * per_run / first.records, fmt::join(frugal_s, " "));
  fmt::print("  ratio frugal / baseline             {:.2f}\n", f / b);
  fmt::print(
      "  CPU seconds (all threads), medians  baseline {:.3f}, frugal {:.3f} (wall x threads = {:.3f}: the\n"
      "                                      difference is time other processes took from us)\n",
      median(baseline_cpu), median(frugal_cpu), f * threads);
  fmt::print("  same results every repeat           {}\n", deterministic ? "yes" : "NO");
  if (o.quick) return deterministic;
  const double scaled = f * static_cast<double>(kTargetRuns) / static_cast<double>(o.runs);
  const bool met = scaled < kTargetSeconds;
  fmt::print("  target: {} runs in < {:.0f} s         {} ({:.3f} s)\n", kTargetRuns, kTargetSeconds,
             met ? "met" : "MISSED", scaled);
  return met && deterministic;
}

// Per plan of the worked example: where the time goes.
void breakdown(frugal_context* context, const sim::Job& all, uint64_t runs, unsigned threads) {
  fmt::print("\nper plan of the worked example ({} runs each, {} threads, median of 3):\n", runs, threads);
  fmt::print("  {:<24} {:>9} {:>9} {:>12} {:>14} {:>7}\n", "plan", "wall h", "records", "frugal us/run",
             "baseline us/run", "ratio");
  for (const auto& plan : all.plans) {
    const sim::Job job = single_plan(all, plan.name);
    const auto configs = sim::plan_configs(context, job);
    const auto frugal = sim::scheduler_factory(context, configs);
    const auto baseline = baseline_factory(job);
    std::vector<double> f, b;
    Timing last;
    for (int i = 0; i < 3; ++i) {
      b.push_back(time_runs(job, baseline, runs, threads, false).seconds);
      last = time_runs(job, frugal, runs, threads, true);
      f.push_back(last.seconds);
    }
    const double fu = 1e6 * median(f) / static_cast<double>(runs), bu = 1e6 * median(b) / static_cast<double>(runs);
    fmt::print("  {:<24} {:>9.1f} {:>9.1f} {:>12.1f} {:>14.1f} {:>7.2f}\n", plan.name,
               sim::summarize(plan, last.results[0]).wall_h.mean, last.records, fu, bu, fu / bu);
  }
  fmt::print(
      "(the baseline makes plan A's decisions for every plan: fixed-step checkpoints, a heartbeat on a notice)\n");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  const auto bad = [](const std::string& message) {
    std::fputs(frugal::args::usage_error_text(command_line(), message).c_str(), stderr);
    return 2;
  };
  // The tools' one parser (support/args); the values are checked here.
  frugal::args::ParsedArgs parsed;
  try {
    parsed = frugal::args::parse(std::vector<std::string>(argv + 1, argv + argc), command_line());
  } catch (const frugal::args::UsageError& e) {
    return bad(e.what());
  }
  if (parsed.help) {
    std::fputs(frugal::args::help_text(command_line()).c_str(), stdout);
    return 0;
  }
  if (!parsed.positional.empty()) return bad("unexpected argument '" + parsed.positional.front() + "'");
  o.quick = parsed.has("--quick");
  // Each numeric flag with its range; a value outside it names the flag.
  const auto number = [&](const char* flag, uint64_t min, uint64_t max, uint64_t& out) {
    const auto text = parsed.value(flag);
    if (!text) return true;
    uint64_t n = 0;
    if (!parse_number(*text, n) || n < min || n > max) return false;
    out = n;
    return true;
  };
  uint64_t repeats = static_cast<uint64_t>(o.repeats), thread_count = o.threads;
  if (!number("--runs", 1, UINT64_MAX, o.runs)) return bad("--runs needs a count > 0");
  if (!number("--repeats", 1, 999, repeats)) return bad("--repeats needs a count from 1 to 999");
  if (!number("--threads", 0, 1023, thread_count)) return bad("--threads needs a count from 0 to 1023");
  if (!number("--breakdown-runs", 0, UINT64_MAX, o.breakdown_runs)) return bad("--breakdown-runs needs a count");
  o.repeats = static_cast<int>(repeats);
  o.threads = static_cast<unsigned>(thread_count);
  if (const auto plan = parsed.value("--plan")) o.plan = *plan;
  if (o.quick) {
    o.runs = 200;
    o.repeats = 2;
    o.breakdown_runs = 0;
  }
  try {
    const unsigned threads = o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
    auto context = sim::open_plugin_context();
    const sim::Job all = sim::worked_example_job(sim::known_strategies(context.get()));
    const bool ok = headline(context.get(), single_plan(all, o.plan), o, threads);
    if (o.breakdown_runs > 0) breakdown(context.get(), all, o.breakdown_runs, threads);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simulate_bench: %s\n", e.what());
    return 1;
  }
}
