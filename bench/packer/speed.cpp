// --speed and --versus-naive: wall time of run_algorithm (packing with the
// assignments returned), single-threaded; pinning to one core is the
// caller's job (taskset -c 0).
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "attempt.hpp"
#include "check.hpp"
#include "distributions.hpp"
#include "modes.hpp"

namespace frugal::bench::packer {

namespace {

constexpr double kTimeTarget = 2.0;  // seconds for 16 Mi sequences

// Runs and checks one algorithm; the time is meaningful only when ok.
Attempt timed(fp::Algorithm a, const Sample& sample, const fp::PackLimits& limits, int repeats,
              const std::string& where, Verdict& verdict) {
  Attempt run = attempt(a, sample.lengths, limits, repeats);
  const std::string who = std::string(fp::algorithm_name(a)) + " (" + where + ")";
  if (run.status == AttemptStatus::pending) {
    verdict.pending(run.message);
  } else if (run.status == AttemptStatus::error) {
    verdict.fail(who + ": " + run.message);
  } else if (const std::string bad = check_packing(run.result, sample.lengths, limits); !bad.empty()) {
    verdict.fail(who + ": invalid packing: " + bad);
    run.status = AttemptStatus::error;
  }
  return run;
}

std::string runs_text(int repeats) {
  return repeats <= 1 ? std::string("a single run") : "median of " + std::to_string(repeats) + " runs";
}

std::string not_ok_text(const Attempt& run) { return run.status == AttemptStatus::pending ? "n/a" : "error"; }

}  // namespace

void run_speed(const SpeedOptions& options, Format format, Verdict& verdict) {
  Table table{"Time to pack " + count_text(options.n) + " sequences (" + std::to_string(options.n) + "), max_len " +
                  std::to_string(options.max_len) + ", no per-pack limit, one core",
              {"algorithm"},
              {},
              {"Time: " + runs_text(options.repeats) +
                   " of run_algorithm (packing with assignments returned), wall time by steady_clock; generating "
                   "lengths and stats are not timed.",
               "cpu: process CPU time of the same runs (median). The < 2 s target is judged on the wall time.",
               "best runs up to five packers (all of them unless refined meets the bound), so its time is their "
               "sum: shown, not judged."}};
  for (const Distribution d : all_distributions()) table.headers.emplace_back(distribution_name(d));
  table.headers.emplace_back("< 2 s");

  // Generate once per distribution (16 Mi lengths take a while and 128 MiB
  // each), then time every algorithm on it.
  std::map<fp::Algorithm, std::vector<std::string>> cells;
  std::map<fp::Algorithm, std::string> target;
  // best is a selector over the others, not a packer of its own.
  const auto judged = [&](fp::Algorithm a) { return options.judge_time_target && a != fp::Algorithm::best; };
  for (const fp::Algorithm a : fast_algorithms()) target[a] = judged(a) ? "met" : "not judged";
  for (const Distribution d : all_distributions()) {
    const Sample sample = generate(d, options.n, options.max_len);
    const fp::PackLimits limits{options.max_len, 0, kPackSeed};
    const std::string where = std::string(distribution_name(d)) + ", n " + count_text(options.n);
    for (const fp::Algorithm a : fast_algorithms()) {
      const Attempt run = timed(a, sample, limits, options.repeats, where, verdict);
      if (run.status != AttemptStatus::ok) {
        cells[a].push_back(not_ok_text(run));
        target[a] = run.status == AttemptStatus::pending ? "pending" : "error";
        continue;
      }
      cells[a].push_back(seconds_text(run.seconds) + " (cpu " + seconds_text(run.cpu_seconds) + ")");
      if (judged(a) && run.seconds >= kTimeTarget) {
        target[a] = "MISSED";
        verdict.fail(std::string(fp::algorithm_name(a)) + " took " + seconds_text(run.seconds) + " for " + where +
                     " (target < 2 s)");
      }
    }
  }
  for (const fp::Algorithm a : fast_algorithms()) {
    std::vector<std::string> row{fp::algorithm_name(a)};
    row.insert(row.end(), cells[a].begin(), cells[a].end());
    row.push_back(target[a]);
    table.add(std::move(row));
  }
  print_table(stdout, table, format);
}

void run_versus_naive(const VersusOptions& options, Format format, Verdict& verdict) {
  const Distribution d = Distribution::lognormal;
  Table table{"Against naive first fit: " + std::string(distribution_name(d)) + ", max_len " +
                  std::to_string(options.max_len) + ", no per-pack limit, one core",
              {"n", "naive_first_fit"},
              {},
              {"Cells: median time (naive time / this time). naive_first_fit scans every open pack for each "
               "sequence, O(n · packs).",
               "Per cell: " + runs_text(options.repeats) + "; naive_first_fit: " +
                   (options.naive_repeats <= 1
                        ? runs_text(1)
                        : runs_text(options.naive_repeats) + " up to 100k sequences, a single run above") +
                   "."}};
  for (const fp::Algorithm a : fast_algorithms()) table.headers.emplace_back(fp::algorithm_name(a));

  std::map<fp::Algorithm, std::vector<double>> ratios;  // per size, for the growth row
  for (const int64_t n : options.sizes) {
    const Sample sample = generate(d, n, options.max_len);
    const fp::PackLimits limits{options.max_len, 0, kPackSeed};
    const std::string where = std::string(distribution_name(d)) + ", n " + count_text(n);
    const int naive_repeats = n <= 100'000 ? options.naive_repeats : 1;
    const Attempt naive = timed(fp::Algorithm::naive_first_fit, sample, limits, naive_repeats, where, verdict);
    std::vector<std::string> row{count_text(n),
                                 naive.status == AttemptStatus::ok ? seconds_text(naive.seconds) : not_ok_text(naive)};
    for (const fp::Algorithm a : fast_algorithms()) {
      const Attempt run = timed(a, sample, limits, options.repeats, where, verdict);
      if (run.status != AttemptStatus::ok || naive.status != AttemptStatus::ok) {
        row.push_back(run.status != AttemptStatus::ok ? not_ok_text(run) : seconds_text(run.seconds));
        continue;
      }
      const double ratio = naive.seconds / std::max(run.seconds, 1e-9);
      ratios[a].push_back(ratio);
      row.push_back(seconds_text(run.seconds) + " (" + fixed(ratio, ratio >= 100 ? 0 : 1) + "×)");
    }
    table.add(std::move(row));
  }

  // How the advantage grows with n: ratio at the largest size over the ratio
  // at the smallest (naive is quadratic-ish, the others near-linear).
  if (options.sizes.size() >= 2) {
    const double n_growth = static_cast<double>(options.sizes.back()) / static_cast<double>(options.sizes.front());
    std::vector<std::string> row{"ratio growth", "n ×" + fixed(n_growth, 0)};
    for (const fp::Algorithm a : fast_algorithms()) {
      const auto& r = ratios[a];
      if (r.size() != options.sizes.size())
        row.emplace_back("n/a");
      else
        row.push_back("×" + fixed(r.back() / r.front(), 1));
    }
    table.add(std::move(row));
  }
  print_table(stdout, table, format);
}

}  // namespace frugal::bench::packer
