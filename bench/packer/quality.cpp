// --quality: how close each algorithm gets to the lower bounds.
#include <array>
#include <cstdio>
#include <map>
#include <string>

#include "algorithms/stats.hpp"
#include "attempt.hpp"
#include "check.hpp"
#include "distributions.hpp"
#include "modes.hpp"

namespace frugal::bench::packer {

namespace {

constexpr std::array<int64_t, 3> kMaxLens{512, 2048, 8192};
constexpr std::array<int64_t, 2> kPerPackLimits{0, 3};
constexpr double kGapTarget = 0.001;  // 0.1 % above the lower bound

struct Cell {
  AttemptStatus status = AttemptStatus::ok;
  fp::PackStats stats;
};

std::string limit_text(int64_t limit) { return limit == 0 ? "none" : std::to_string(limit); }

double gap(int64_t packs, int64_t bound) {
  return bound > 0 ? static_cast<double>(packs - bound) / static_cast<double>(bound) : 0.0;
}

std::string status_text(AttemptStatus s) { return s == AttemptStatus::pending ? "n/a" : "error"; }

}  // namespace

void run_quality(const QualityOptions& options, Format format, Verdict& verdict) {
  const auto algorithms = fast_algorithms();

  Table dists{"Distributions (L = max_len; lengths clipped to [1, L])", {"distribution", "definition"}, {}, {}};
  for (const Distribution d : all_distributions()) {
    dists.add({std::string(distribution_name(d)), std::string(distribution_definition(d))});
  }
  print_table(stdout, dists, format);

  Table means{"Generated inputs, n = " + count_text(options.n),
              {"distribution", "max_len", "mean length", "mean / max_len", "≤ L/16", "clipped", "0.1 % target"},
              {},
              {"0.1 % target: applies where mean / max_len ≤ 0.25.",
               "clipped: draws outside [1, max_len] set to the nearest end (long-tail draws land on max_len)."}};

  std::vector<std::string> header{"distribution", "max_len", "per-pack limit", "mean / L"};
  Table eff{"Efficiency = real tokens / (packs × max_len), n = " + count_text(options.n), header, {}, {}};
  Table tight{"Gap to lower_bound_tight (packs / bound − 1), n = " + count_text(options.n),
              {"distribution", "max_len", "per-pack limit", "bound"},
              {},
              {}};
  Table tokens{"Gap to lower_bound = ceil(tokens / max_len), n = " + count_text(options.n),
               {"distribution", "max_len", "per-pack limit", "bound"},
               {},
               {}};
  for (const fp::Algorithm a : algorithms) {
    eff.headers.emplace_back(fp::algorithm_name(a));
    tight.headers.emplace_back(fp::algorithm_name(a));
    tokens.headers.emplace_back(fp::algorithm_name(a));
  }
  tight.headers.emplace_back("best ≥ bfd");
  tight.headers.emplace_back("best ≤ 0.1 %");

  for (const Distribution d : all_distributions()) {
    for (const int64_t max_len : kMaxLens) {
      const Sample sample = generate(d, options.n, max_len);
      const double ratio = sample.mean() / static_cast<double>(max_len);
      const bool gap_target_applies = ratio <= 0.25;
      int64_t short_ones = 0;
      for (const int64_t len : sample.lengths) short_ones += 16 * len <= max_len ? 1 : 0;
      means.add({std::string(distribution_name(d)), std::to_string(max_len), fixed(sample.mean(), 1), fixed(ratio, 3),
                 percent(static_cast<double>(short_ones) / static_cast<double>(options.n), 1),
                 percent(static_cast<double>(sample.clipped) / static_cast<double>(options.n), 2),
                 gap_target_applies ? "applies" : "—"});

      for (const int64_t limit : kPerPackLimits) {
        const fp::PackLimits limits{max_len, limit, kPackSeed};
        const std::string where = std::string(distribution_name(d)) + ", max_len " + std::to_string(max_len) +
                                  ", per-pack limit " + limit_text(limit);
        std::map<fp::Algorithm, Cell> cells;
        int64_t bound = 0;
        int64_t bound_tight = 0;
        for (const fp::Algorithm a : algorithms) {
          Attempt run = attempt(a, sample.lengths, limits);
          Cell& cell = cells[a];
          cell.status = run.status;
          const std::string who = std::string(fp::algorithm_name(a)) + " (" + where + ")";
          if (run.status == AttemptStatus::pending) {
            verdict.pending(run.message);
            continue;
          }
          if (run.status == AttemptStatus::error) {
            verdict.fail(who + ": " + run.message);
            continue;
          }
          if (const std::string bad = check_packing(run.result, sample.lengths, limits); !bad.empty()) {
            verdict.fail(who + ": invalid packing: " + bad);
            cell.status = AttemptStatus::error;
            continue;
          }
          cell.stats = fp::compute_stats(run.result, sample.lengths, limits);
          bound = cell.stats.lower_bound;
          bound_tight = cell.stats.lower_bound_tight;
          if (cell.stats.packs < bound_tight) {
            verdict.fail(who + ": " + std::to_string(cell.stats.packs) + " packs, below the lower bound " +
                         std::to_string(bound_tight) + " (the bound or the stats are wrong)");
          }
        }

        const std::string common[] = {std::string(distribution_name(d)), std::to_string(max_len), limit_text(limit)};
        std::vector<std::string> e{common[0], common[1], common[2], fixed(ratio, 3)};
        std::vector<std::string> t{common[0], common[1], common[2], std::to_string(bound_tight)};
        std::vector<std::string> k{common[0], common[1], common[2], std::to_string(bound)};
        for (const fp::Algorithm a : algorithms) {
          const Cell& c = cells[a];
          if (c.status != AttemptStatus::ok) {
            e.push_back(status_text(c.status));
            t.push_back(status_text(c.status));
            k.push_back(status_text(c.status));
            continue;
          }
          e.push_back(percent(c.stats.efficiency, 3));
          t.push_back(percent(gap(c.stats.packs, bound_tight), 3));
          k.push_back(percent(gap(c.stats.packs, bound), 3));
        }

        // The targets are about `best`; until it exists they are pending.
        const Cell& best = cells[fp::Algorithm::best];
        const Cell& bfd = cells[fp::Algorithm::best_fit_decreasing];
        if (best.status != AttemptStatus::ok || bfd.status != AttemptStatus::ok) {
          t.emplace_back(best.status == AttemptStatus::pending ? "pending" : "error");
          t.emplace_back(!gap_target_applies ? "—" : best.status == AttemptStatus::pending ? "pending" : "error");
        } else {
          // Compared in packs (integers): same max_len and tokens, so fewer
          // packs is exactly higher efficiency.
          const bool not_below = best.stats.packs <= bfd.stats.packs;
          t.emplace_back(not_below ? "met" : "MISSED");
          if (!not_below) {
            verdict.fail("best below bfd (" + where + "): " + std::to_string(best.stats.packs) + " packs vs " +
                         std::to_string(bfd.stats.packs));
          }
          if (!gap_target_applies) {
            t.emplace_back("—");
          } else {
            const double g = gap(best.stats.packs, best.stats.lower_bound_tight);
            const bool within = g <= kGapTarget;
            if (within)
              t.emplace_back("met");
            else if (options.judge_gap_target)
              t.emplace_back("MISSED");
            else
              t.emplace_back("missed (not judged)");
            if (!within && options.judge_gap_target) {
              verdict.fail("best not within 0.1 % of lower_bound_tight (" + where + "): gap " + percent(g, 3));
            }
          }
        }
        eff.add(std::move(e));
        tight.add(std::move(t));
        tokens.add(std::move(k));
      }
    }
  }

  tight.notes = {
      "Targets: `best` never below `bfd` (never more packs); where mean / max_len ≤ 0.25, `best` within "
      "0.1 % of lower_bound_tight (— where that target does not apply).",
      "lower_bound_tight: compute_stats' tighter bound (algorithms/stats.hpp says what it counts); "
      "the 0.1 % target is judged against it.",
      "n/a and pending: the algorithm reports \"not implemented yet\"."};
  if (!options.judge_gap_target) {
    tight.notes.emplace_back("The 0.1 % target is not judged at this n (0.1 % of the bound is a few packs at most).");
  }
  tokens.notes = {
      "With a per-pack limit the token bound is often unreachable (chat with limit 3 needs n / 3 "
      "packs whatever the tokens); the tight bound accounts for that."};
  print_table(stdout, means, format);
  print_table(stdout, eff, format);
  print_table(stdout, tight, format);
  print_table(stdout, tokens, format);
}

}  // namespace frugal::bench::packer
