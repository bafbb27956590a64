// Many runs of every plan, on worker threads, with results that do not
// depend on the thread count: run i of every plan uses the seed derived
// from (seed, i) (the plans see the same preemption draws, which makes
// their comparison sharper), and results are stored by (plan, run) and
// reduced in run order afterwards.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "decision_source.hpp"
#include "job.hpp"
#include "run_engine.hpp"
#include "trace.hpp"

namespace frugal::simulate {

// Makes the decision source of plan `plan_index` for one worker. Called on
// the calling thread, before any worker starts.
using SourceFactory = std::function<std::unique_ptr<DecisionSource>(size_t plan_index)>;

struct MonteCarloOptions {
  uint64_t runs = 200;
  uint64_t seed = 1;
  unsigned threads = 0;                       // 0: std::thread::hardware_concurrency()
  std::atomic<uint64_t>* progress = nullptr;  // counts finished runs (all plans), when set
  std::atomic<uint64_t>* events = nullptr;    // counts simulated events (records), when set
  bool check_books = true;                    // check_conservation on every run
};

// results[plan][run]. Throws the error of the first failed run in (plan,
// run) order: std::runtime_error, or host::Exception from a source.
std::vector<std::vector<RunResult>> run_monte_carlo(const Job& job, const Trace* trace, const SourceFactory& factory,
                                                    const MonteCarloOptions& options);

// The seed of run `run`.
uint64_t run_seed(uint64_t seed, uint64_t run);

}  // namespace frugal::simulate
