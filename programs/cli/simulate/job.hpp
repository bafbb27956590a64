// The simulated job and the plans to compare, as read from a job file
// (docs/simulate.md describes every field). Units: seconds of job clock,
// dollars per node-hour, tokens. A node has gpus_per_node GPUs and is the
// unit that is bought, preempted and priced (one cloud instance).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frugal/telemetry.h"

namespace frugal::simulate {

// A typed option value for a policy or a schedule (frugal_options).
struct OptionValue {
  enum class Type { kInt, kDouble, kBool, kString };
  std::string name;
  Type type = Type::kDouble;
  int64_t int_value = 0;
  double double_value = 0.0;
  bool bool_value = false;
  std::string string_value;
};

struct PolicySpec {
  std::string name;  // "checkpoint_cadence" or "policy_cost/checkpoint_cadence"
  std::vector<OptionValue> options;
};

struct PlanSpec {
  std::string name;
  std::string description;
  int32_t resource = FRUGAL_RESOURCE_SPOT;  // frugal_resource_class_values: where the job starts
  uint32_t nodes = 1;                       // how many it starts with
  // Share of the processed tokens that are padding (0 with sequence
  // packing): the plan must process work / (1 - padding) tokens.
  double padding_fraction = 0.0;
  std::string schedule;  // LR schedule strategy, "" for none
  std::vector<OptionValue> schedule_options;
  std::vector<PolicySpec> policies;
};

// The loss the job reports, as a function of real (non-padding) tokens
// trained; see loss_model.hpp.
struct LossSpec {
  enum class Kind { kPowerLaw, kLog };
  Kind kind = Kind::kPowerLaw;
  // Power law: L(D) = floor + (initial - floor) * (1 + D / scale_tokens)^-alpha.
  double initial = 10.0;
  double floor = 2.0;
  double alpha = 0.3;
  double scale_tokens = 1e8;
  // Recorded log: loss at optimizer steps (strictly increasing), linear
  // in between, held beyond both ends.
  std::string log_file;
  std::vector<double> log_steps;
  std::vector<double> log_losses;
  // Relative standard deviation of the reported training / eval loss
  // (multiplicative Gaussian noise, seeded per run; 0: none).
  double noise = 0.0;
  double eval_noise = 0.0;
};

struct PreemptionSpec {
  // Mean hours between preemptions of one spot node (a job on n nodes is
  // preempted n times as often); 0: spot is never preempted. Used when no
  // trace gives availability.
  double spot_mtbf_node_h = 24.0;
  // Mean seconds to wait for spot capacity after a preemption
  // (exponential); used when no trace gives availability.
  double capacity_wait_mean_s = 600.0;
  // Warning before a preemption (AWS: 120 s, GCP: 30 s; 0: none).
  double notice_s = 120.0;
};

struct Job {
  std::string name;
  std::string notes;
  std::string source;  // the file it came from ("" for the built-in worked example)
  uint32_t gpus_per_node = 8;
  uint32_t nodes = 1;               // the default for plans that give none
  double work_tokens = 0.0;         // real tokens to train
  double tokens_per_gpu_s = 0.0;    // per GPU on one node
  double scaling_efficiency = 1.0;  // per doubling of nodes: n nodes run n x eff^log2(n) as fast as one
  int64_t tokens_per_step = 1 << 20;
  LossSpec loss;
  double checkpoint_full_s = 300.0;       // training stalls this long for a full checkpoint
  double checkpoint_heartbeat_s = 30.0;   // ... and for a heartbeat
  int64_t checkpoint_every_steps = 5000;  // the standard plans' fixed cadence
  double heartbeat_interval_s = 1800.0;   // the standard heartbeat plan's timer
  double restart_s = 600.0;               // boot + restore after a preemption or a move (paid)
  double spot_price = 0.0;                // $ per node-hour (a price trace replaces it)
  double reserved_price = 0.0;
  PreemptionSpec preemption;
  double telemetry_interval_s = 3600.0;  // job-clock seconds between regular telemetry records
  double max_wall_h = 0.0;               // a run that has not finished by then is cut (0: 50x the ideal)
  std::vector<PlanSpec> plans;
};

// Derived quantities every part of the simulator agrees on.
// Processed tokens per second on `nodes` nodes.
double node_throughput(const Job& job, uint32_t nodes);
// The tokens a plan processes (padding included) to finish the job's work.
double plan_tokens(const Job& job, const PlanSpec& plan);
// Useful GPU-hours: a plan's tokens at one node's per-GPU rate.
double useful_gpu_hours(const Job& job, double processed_tokens);
// The job's MTBF in seconds on `nodes` spot nodes (0: never preempted).
double spot_mtbf_s(const Job& job, uint32_t nodes);

}  // namespace frugal::simulate
