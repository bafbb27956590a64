// frugal-demo: the end-to-end training demo (`frugal demo`). Without
// --worker it is the supervisor: it prepares --out, runs the baseline and
// the frugal plan (each in worker processes it starts, preempts and
// restarts), then prints the report and writes report.json and report.svg.
// With the hidden --worker RUN it is one attempt of one run.
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "corpus.hpp"
#include "demo_options.hpp"
#include "metrics.hpp"
#include "output_dir.hpp"
#include "report.hpp"
#include "run_plan.hpp"
#include "supervisor.hpp"
#include "trainer.hpp"

namespace {

using namespace frugal_demo;

void print_plan(const RunPlan& plan) {
  std::printf("\n== %s run: ", plan.name.c_str());
  for (const auto& [key, value] : plan.describe()) {
    if (key == "batching" || key == "ffn" || key == "precision" || key == "checkpoints" || key == "capacity")
      std::printf("%s%s", key == "batching" ? "" : "; ", value.c_str());
  }
  std::printf("\n");
  std::fflush(stdout);
}

int run_demo(const DemoOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const std::string prepared = prepare_output_dir(options.out);
  const RunPlan baseline = baseline_plan(options);
  const RunPlan frugal = frugal_plan(options);
  // Read the corpus once here so a missing one is reported before any
  // process starts.
  const Corpus corpus = load_corpus(baseline.corpus, baseline.seq);
  std::printf("frugal demo: %s\n", prepared.c_str());
  std::printf(
      "Training a tiny transformer LM on %s (%zu train / %zu eval sequences), twice, %.0f s each\n"
      "on %d thread(s). The job clock runs %.0fx: a demo second stands for a minute of a %u-node\n"
      "cluster at $%.2f (reserved) or $%.2f (spot) per node-hour.\n",
      corpus.source.c_str(), corpus.train.size(), corpus.eval.size(), baseline.budget_s, baseline.threads,
      baseline.time_scale, baseline.nodes, baseline.reserved_price, baseline.spot_price);

  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  for (const RunPlan* plan : {&baseline, &frugal}) {
    print_plan(*plan);
    run_supervised(options, *plan, self);
  }

  const RunMetrics baseline_metrics = read_run_metrics(options.out / baseline.name);
  const RunMetrics frugal_metrics = read_run_metrics(options.out / frugal.name);
  const Report report = compute_report(baseline_metrics, frugal_metrics);
  std::printf("\n");
  print_report_table(report, stdout);
  write_report_json(report, options.out / "report.json");
  write_report_svg(baseline_metrics, frugal_metrics, report, options.out / "report.svg");
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf(
      "\nFiles in %s: report.json, report.svg (the plot), and per run (baseline/, frugal/)\n"
      "steps.csv eval.csv events.csv experts.csv resume.csv ledger.csv run.csv and the checkpoint\n"
      "store (store/). docs/demo.md explains every figure. Took %.0f s.\n",
      options.out.string().c_str(), elapsed);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  DemoOptions options;
  try {
    options = parse_demo_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& error) {
    std::fputs(demo_usage_error(error.what()).c_str(), stderr);
    return 2;
  }
  if (options.help) {
    std::fputs(demo_usage().c_str(), stdout);
    return 0;
  }
  try {
    if (!options.worker.empty()) return run_worker(options);
    return run_demo(options);
  } catch (const std::exception& error) {
    if (options.worker.empty()) {
      std::fprintf(stderr, "frugal-demo: error: %s\n", error.what());
    } else {
      std::fprintf(stderr, "frugal-demo (%s worker, attempt %d): error: %s\n", options.worker.c_str(), options.attempt,
                   error.what());
    }
    return 1;
  }
}
