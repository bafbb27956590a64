#include "job.hpp"

#include <cmath>

namespace frugal::simulate {

double node_throughput(const Job& job, uint32_t nodes) {
  const double n = static_cast<double>(nodes);
  return n * job.gpus_per_node * job.tokens_per_gpu_s * std::pow(job.scaling_efficiency, std::log2(n));
}

double plan_tokens(const Job& job, const PlanSpec& plan) { return job.work_tokens / (1.0 - plan.padding_fraction); }

double useful_gpu_hours(const Job& job, double processed_tokens) {
  return processed_tokens / job.tokens_per_gpu_s / 3600.0;
}

double spot_mtbf_s(const Job& job, uint32_t nodes) {
  if (job.preemption.spot_mtbf_node_h <= 0.0) return 0.0;
  return job.preemption.spot_mtbf_node_h * 3600.0 / static_cast<double>(nodes);
}

}  // namespace frugal::simulate
