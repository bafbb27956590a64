#include "supervisor.hpp"

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <thread>

#include "job_clock.hpp"
#include "metrics.hpp"
#include "metrics_writer.hpp"
#include "worker_process.hpp"

namespace frugal_demo {
namespace {

// What the worker logged last: its step, capacity, and the step of its
// last checkpoint (from steps.csv, which it appends as it goes).
struct WorkerProgress {
  std::int64_t step = 0;
  bool on_spot = false;
  std::int64_t checkpoint_step = 0;
  int attempt = -1;
};

WorkerProgress read_progress(const std::filesystem::path& run_dir) {
  WorkerProgress progress;
  if (!std::filesystem::exists(run_dir / kStepsFile)) return progress;
  for (const StepRecord& row : read_step_records(run_dir)) {
    progress.step = row.step;
    progress.on_spot = row.resource == "spot";
    progress.attempt = row.attempt;
    if (!row.checkpoint.empty()) progress.checkpoint_step = row.step;
  }
  return progress;
}

// A hard kill lands at least this many steps after the worker's last
// checkpoint, so the demo always shows work lost to it (and steps a
// resumed attempt recomputes).
constexpr std::int64_t kMinStepsPastCheckpoint = 2;

class RunSupervisor {
 public:
  RunSupervisor(const DemoOptions& options, const RunPlan& plan, std::filesystem::path executable)
      : options_(options),
        plan_(plan),
        executable_(std::move(executable)),
        dir_(options.out / plan.name),
        // Started here, before the first worker: the job begins when the
        // supervisor asks for capacity.
        clock_(JobClock::open_or_start(dir_ / "start.txt", plan.time_scale)) {}

  void run() {
    int attempt = 0;
    std::size_t next_preemption = 0;
    while (true) {
      WorkerProcess worker(executable_, worker_arguments(options_, plan_.name, attempt));
      const std::optional<std::string> preempted = watch(worker, attempt, next_preemption);
      if (!preempted) return;
      // The worker is gone: its last step stays the same until the restart.
      const std::int64_t last_step = read_progress(dir_).step;
      MetricsWriter(dir_, attempt).event(clock_.now_s(), "killed", last_step, *preempted);
      std::printf("  %-8s worker killed (%s); capacity back in %.0f job-minutes\n", plan_.name.c_str(),
                  preempted->c_str(), plan_.downtime_s * plan_.time_scale / 60.0);
      std::fflush(stdout);
      std::this_thread::sleep_for(std::chrono::duration<double>(plan_.downtime_s));
      ++attempt;
      MetricsWriter(dir_, attempt).event(clock_.now_s(), "restart", last_step, "from the store");
    }
  }

 private:
  // Watches the worker until it ends. Returns the signal it was preempted
  // with, or nullopt when it finished its budget; throws when it failed.
  std::optional<std::string> watch(WorkerProcess& worker, int attempt, std::size_t& next_preemption) {
    while (true) {
      if (const auto end = worker.poll()) {
        if (end->exited && end->exit_code == 0) return std::nullopt;
        throw std::runtime_error("the " + plan_.name + " worker (attempt " + std::to_string(attempt) +
                                 ") failed: " + end->describe() + "; its messages are above");
      }
      if (next_preemption < plan_.preemptions.size() && clock_.now_s() >= plan_.preemptions[next_preemption].at_job_s) {
        const WorkerProgress progress = read_progress(dir_);
        const InjectedPreemption& preemption = plan_.preemptions[next_preemption];
        if (progress.attempt == attempt && !progress.on_spot) {
          std::printf("  %-8s on reserved capacity at job minute %.1f: no preemption there\n", plan_.name.c_str(),
                      clock_.now_s() / 60.0);
          ++next_preemption;
        } else if (progress.attempt == attempt && preemption.notice) {
          ++next_preemption;
          return preempt_with_notice(worker, attempt, progress);
        } else if (progress.attempt == attempt && progress.step >= progress.checkpoint_step + kMinStepsPastCheckpoint) {
          ++next_preemption;
          worker.signal(SIGKILL);
          const auto end = worker.wait_for(10.0);
          if (end && end->exited && end->exit_code == 0) return std::nullopt;  // it finished first
          return signal_name(SIGKILL);
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  // SIGTERM, the grace period for the emergency heartbeat, then SIGKILL.
  std::optional<std::string> preempt_with_notice(WorkerProcess& worker, int attempt, const WorkerProgress& progress) {
    MetricsWriter(dir_, attempt)
        .event(clock_.now_s(), "preempt_notice", progress.step,
               "SIGTERM, " + std::to_string(static_cast<int>(plan_.grace_s * plan_.time_scale)) + " job-s to go");
    worker.signal(SIGTERM);
    if (const auto end = worker.wait_for(plan_.grace_s)) {
      if (end->exited && end->exit_code == 0) return std::nullopt;  // it had finished its budget
      if (end->exited && end->exit_code == kPreemptedExitCode) return signal_name(SIGTERM);
      throw std::runtime_error("the " + plan_.name + " worker (attempt " + std::to_string(attempt) +
                               ") failed after its preemption notice: " + end->describe() + "; its messages are above");
    }
    worker.signal(SIGKILL);  // the grace period is over: the cloud takes the nodes
    (void)worker.wait_for(10.0);
    return signal_name(SIGKILL) + " after the grace period";
  }

  const DemoOptions& options_;
  const RunPlan& plan_;
  std::filesystem::path executable_;
  std::filesystem::path dir_;
  JobClock clock_;
};

}  // namespace

void run_supervised(const DemoOptions& options, const RunPlan& plan, const std::filesystem::path& executable) {
  RunSupervisor(options, plan, executable).run();
}

}  // namespace frugal_demo
