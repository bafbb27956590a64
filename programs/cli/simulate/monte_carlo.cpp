#include "monte_carlo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <thread>

#include "random.hpp"

namespace frugal::simulate {

uint64_t run_seed(uint64_t seed, uint64_t run) { return derive_seed(seed, run, 0); }

std::vector<std::vector<RunResult>> run_monte_carlo(const Job& job, const Trace* trace, const SourceFactory& factory,
                                                    const MonteCarloOptions& options) {
  const size_t plans = job.plans.size();
  const uint64_t runs = options.runs;
  const uint64_t tasks = plans * runs;
  unsigned threads = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<uint64_t>(threads, std::max<uint64_t>(1, tasks)));

  std::vector<RunSetup> setups;
  for (const auto& plan : job.plans) {
    setups.push_back(make_run_setup(job, plan, trace));
    setups.back().events = options.events;
  }
  // Every worker gets its own sources (a scheduler is single-threaded).
  std::vector<std::vector<std::unique_ptr<DecisionSource>>> sources(threads);
  for (auto& worker : sources)
    for (size_t p = 0; p < plans; ++p) worker.push_back(factory(p));

  std::vector<std::vector<RunResult>> results(plans, std::vector<RunResult>(runs));
  std::vector<std::exception_ptr> errors(tasks);
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  auto work = [&](unsigned worker) {
    for (uint64_t task = next.fetch_add(1); task < tasks && !failed.load(std::memory_order_relaxed);
         task = next.fetch_add(1)) {
      // Run-major order: all plans of run 0 first, so a progress bar moves evenly.
      const size_t plan = static_cast<size_t>(task % plans);
      const uint64_t run = task / plans;
      try {
        RunResult& r = results[plan][run] =
            simulate_run(setups[plan], *sources[worker][plan], run_seed(options.seed, run));
        if (options.check_books) {
          if (const std::string problem = check_conservation(r); !problem.empty())
            throw std::runtime_error(
                fmt::format("plan '{}', run {}: the books do not balance: {}", job.plans[plan].name, run, problem));
        }
      } catch (...) {
        errors[task] = std::current_exception();
        failed.store(true, std::memory_order_relaxed);
      }
      if (options.progress != nullptr) options.progress->fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < threads; ++w) pool.emplace_back(work, w);
  work(0);
  for (auto& thread : pool) thread.join();
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
  return results;
}

}  // namespace frugal::simulate
