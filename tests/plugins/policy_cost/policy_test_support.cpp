#include "policy_test_support.hpp"

#include <random>

namespace frugal::test {

std::vector<frugal_telemetry> busy_day() {
  std::mt19937 gen(2024);
  const auto noise = [&](double a) { return a * (2.0 * (static_cast<double>(gen()) / 4294967296.0) - 1.0); };
  std::vector<frugal_telemetry> out;
  int64_t step = 0;
  for (int i = 1; i <= 1440; ++i) {
    const double t = 60.0 * i;
    step += 25;
    double loss = t < 50000 ? 3.0 + noise(0.2) : 3.0 - 4e-5 * (t - 50000) + noise(0.02);
    if (i % 97 == 0) loss += 1.5;
    frugal_telemetry r = record(t, step, loss, static_cast<uint32_t>(2 + (i / 200) % 3));
    if (i % 10 == 0) {
      r.flags |= FRUGAL_TELEMETRY_EVAL_LOSS;
      r.eval_loss = loss + 0.1 + noise(0.05);
    }
    if (i == 300 || i == 330 || i == 345 || i == 1000) {
      r.flags |= FRUGAL_TELEMETRY_RESTARTED;
      step -= 500;
      r.step = step;
      r.tokens = step * 1000;
    }
    if (i % 50 == 0) r.checkpoint_done = FRUGAL_CKPT_HEARTBEAT;
    if (i % 130 == 0) {
      r.checkpoint_done = FRUGAL_CKPT_FULL;
      r.checkpoint_stall_s = 40 + noise(10);
    }
    if (i >= 600 && i < 660) r.price_per_node_hour = 2.9;
    if (i >= 500 && i < 520) r.resource = FRUGAL_RESOURCE_RESERVED;
    if (i == 200 || i == 201 || i == 900) r.preemption_notice_s = i == 900 ? 30 : 120;
    out.push_back(r);
  }
  return out;
}

}  // namespace frugal::test
