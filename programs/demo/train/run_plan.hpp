// The two plans the demo compares, as data: everything a worker needs to
// train one run, computed from the command line alone, so every attempt
// of a run (and the supervisor) derives the same plan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "adamw.hpp"
#include "demo_options.hpp"
#include "model.hpp"

namespace frugal_demo {

// A preemption the supervisor injects while the worker is on spot.
struct InjectedPreemption {
  double at_job_s = 0;  // job-clock time it is due
  bool notice = true;   // SIGTERM and a grace period, or SIGKILL out of the blue
};

struct RunPlan {
  std::string name;  // "baseline" or "frugal": also the run's directory under --out
  // Model and data.
  ModelConfig model;
  bool packed = false;  // packer_seq batches (else one padded sequence per row)
  bool fp8 = false;     // quant_fp8 fake-quant on every linear layer
  std::size_t rows = 8, seq = 128;
  std::size_t eval_rows = 32;
  std::vector<std::filesystem::path> corpus;
  std::uint64_t seed = 1;
  int threads = 1;
  // Optimizer and schedule (the same for both plans).
  AdamWOptions adamw;
  double lr = 3e-3, min_lr = 3e-4;
  std::int64_t warmup_steps = 10, total_steps = 200;
  // Time and money.
  double budget_s = 20;    // real seconds of this run, downtime included
  double time_scale = 60;  // job-clock seconds per real second
  std::uint32_t nodes = 8;
  double reserved_price = 3.0, spot_price = 1.0;  // dollars per node-hour
  bool starts_on_spot = false;
  // Checkpoints: the baseline saves a blocking full one every
  // full_every_steps; the frugal plan follows checkpoint_cadence
  // (heartbeats every heartbeat_every_job_s of job clock, asynchronous).
  std::int64_t full_every_steps = 25;
  bool policies = false;  // checkpoint_cadence + spot_phase drive the run
  double heartbeat_every_job_s = 60;
  double min_spot_job_s = 0;
  std::int64_t eval_every_steps = 10;
  // Preemptions (frugal only) and how they play out, in real seconds.
  std::vector<InjectedPreemption> preemptions;
  double grace_s = 3;               // SIGTERM to SIGKILL
  double downtime_s = 2;            // capacity comes back after this
  double emergency_deadline_s = 2;  // within the grace period

  [[nodiscard]] double budget_job_s() const { return budget_s * time_scale; }
  // The plan in words, for run.csv and the terminal.
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> describe() const;
};

// The exit code of a worker that saved an emergency heartbeat on a
// preemption notice and stopped (EX_TEMPFAIL: try again later).
inline constexpr int kPreemptedExitCode = 75;

RunPlan baseline_plan(const DemoOptions& options);
RunPlan frugal_plan(const DemoOptions& options);
// "baseline" or "frugal"; std::invalid_argument for anything else.
RunPlan plan_named(const std::string& name, const DemoOptions& options);

}  // namespace frugal_demo
