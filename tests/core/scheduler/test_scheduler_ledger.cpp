// The cost ledger: a hand-worked scenario (spot, a full checkpoint with a
// stall, a restart, reserved), and random scenarios checking that money and
// time are conserved against an independent sum of price x nodes x time.
#include <catch2/catch.hpp>

#include "test_seed.hpp"

#include <limits>
#include <random>

#include "scheduler_harness.hpp"

using namespace frugal;
using frugal::test::record;
using frugal::test::SchedulerHarness;
using frugal::test::SchedulerSpec;

TEST_CASE("the ledger books a hand-worked scenario exactly") {
  SchedulerHarness s(SchedulerSpec{"", {}, {{"probe_policy", {}}}, 8});
  auto at = [](double wall, int64_t step, double loss, int32_t resource, double price) {
    frugal_telemetry t = record(wall, step, loss);
    t.nodes = 2;
    t.resource = resource;
    t.price_per_node_hour = price;
    return t;
  };
  s.step(at(3600, 100, 3.0, FRUGAL_RESOURCE_SPOT, 10));  // $20, pending 1 h
  frugal_telemetry full = at(5400, 150, 2.5, FRUGAL_RESOURCE_SPOT, 10);
  full.checkpoint_done = FRUGAL_CKPT_FULL;
  full.checkpoint_stall_s = 600;
  s.step(full);                                          // $10: 600 s stall, then everything so far is kept
  s.step(at(9000, 250, 2.0, FRUGAL_RESOURCE_SPOT, 10));  // $20, pending 1 h
  frugal_telemetry restart = at(10800, 150, 2.2, FRUGAL_RESOURCE_SPOT, 10);
  restart.flags = FRUGAL_TELEMETRY_RESTARTED;
  s.step(restart);                                            // $10 downtime; the pending hour is lost too
  s.step(at(14400, 250, 1.8, FRUGAL_RESOURCE_RESERVED, 30));  // $60 on reserved

  const frugal_cost_ledger l = s.ledger();
  CHECK(l.dollars == Approx(120));
  CHECK(l.spot_dollars == Approx(60));
  CHECK(l.reserved_dollars == Approx(60));
  CHECK(l.productive_dollars == Approx(20 + 10 - 10.0 / 3 + 60));
  CHECK(l.stall_dollars == Approx(10.0 / 3));
  CHECK(l.lost_dollars == Approx(30));
  CHECK(l.productive_s == Approx(4800 + 3600));
  CHECK(l.stall_s == Approx(600));
  CHECK(l.lost_s == Approx(5400));
  CHECK(l.wall_s == 14400);
  CHECK(l.gpu_hours == Approx(2 * 8 * 4.0));
  CHECK(l.restarts == 1);
  CHECK(l.checkpoints_full == 1);
  CHECK(l.checkpoints_heartbeat == 0);
  CHECK(l.loss_first == 3.0);
  // EMA (alpha 0.1) of 3.0, 2.5, 2.0, 2.2, 1.8: 3.0, 2.95, 2.855, 2.7895, 2.69055.
  CHECK(l.loss_best == Approx(2.69055));
  CHECK(l.dollars_per_loss == Approx(120 / (3.0 - 2.69055)));
}

TEST_CASE("a fresh ledger is all zeros and the per-loss price waits for an improvement") {
  SchedulerHarness s(SchedulerSpec{});
  frugal_cost_ledger l = s.ledger();
  CHECK(l.dollars == 0);
  CHECK(l.wall_s == 0);
  CHECK(l.dollars_per_loss == 0);
  s.step(record(3600, 1, 2.0));
  s.step(record(7200, 2, 2.5));  // worse: no improvement yet
  l = s.ledger();
  CHECK(l.dollars == Approx(20));
  CHECK(l.dollars_per_loss == 0);
  // An older caller's smaller ledger struct gets only its fields.
  frugal_cost_ledger small{};
  small.struct_size = offsetof(frugal_cost_ledger, gpu_hours);
  small.gpu_hours = -1;
  host::check(frugal_scheduler_ledger(s.get(), &small));
  CHECK(small.dollars == Approx(20));
  CHECK(small.gpu_hours == -1);
}

TEST_CASE("records without a loss (FRUGAL_TELEMETRY_NO_LOSS) are booked, but are no loss observation") {
  SchedulerHarness s(SchedulerSpec{"", {}, {{"probe_policy", {}}}});
  for (int i = 1; i <= 3; ++i) {
    frugal_telemetry t = record(3600.0 * i, i, std::numeric_limits<double>::quiet_NaN());
    t.flags = FRUGAL_TELEMETRY_NO_LOSS;
    s.step(t);
  }
  frugal_cost_ledger l = s.ledger();
  CHECK(l.dollars == Approx(30));
  CHECK(l.loss_first == 0);
  CHECK(l.loss_best == 0);
  s.step(record(4 * 3600.0, 4, 3.0));
  s.step(record(5 * 3600.0, 5, 2.0));
  l = s.ledger();
  CHECK(l.loss_first == 3.0);
  CHECK(l.loss_best == Approx(2.9));  // the EMA seeded with the first real loss
  CHECK(l.dollars_per_loss == Approx(50 / 0.1));
  // Without the flag a NaN loss is still refused.
  const test::Outcome nan = s.try_step(record(6 * 3600.0, 6, std::numeric_limits<double>::quiet_NaN()));
  CHECK(nan.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(nan.message.find("telemetry.loss is nan at step 6") != std::string::npos);
}

TEST_CASE("random runs conserve money and time against an independent sum") {
  const uint64_t seed = frugal_test::test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int run = 0; run < 20; ++run) {
    const uint32_t gpus = 1 + static_cast<uint32_t>(rng() % 8);
    SchedulerHarness s(SchedulerSpec{"", {}, {{"probe_policy", {{"checkpoint_every", "3"}}}}, gpus});
    double wall = 0, paid = 0, spot = 0, gpu_hours = 0;
    int64_t step = 0, restarts = 0;
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int i = 0; i < 200; ++i) {
      const double interval = 3600 * unit(rng);
      wall += interval;
      frugal_telemetry t = record(wall, step, 3.0 - 0.001 * i + 0.1 * unit(rng));
      t.nodes = 1 + static_cast<uint32_t>(rng() % 16);
      t.price_per_node_hour = 40 * unit(rng);
      t.resource = rng() % 2 ? FRUGAL_RESOURCE_SPOT : FRUGAL_RESOURCE_RESERVED;
      const double roll = unit(rng);
      if (roll < 0.05) {
        t.flags = FRUGAL_TELEMETRY_RESTARTED;
        step = std::max<int64_t>(0, step - 20);
        t.step = step;
        t.tokens = step * 1000;
        ++restarts;
      } else if (roll < 0.3) {
        t.checkpoint_done = roll < 0.15 ? FRUGAL_CKPT_FULL : FRUGAL_CKPT_HEARTBEAT;
        t.checkpoint_stall_s = interval * unit(rng);
      }
      s.step(t);
      step += 10;
      const double cost = t.price_per_node_hour * t.nodes * interval / 3600;
      paid += cost;
      if (t.resource == FRUGAL_RESOURCE_SPOT) spot += cost;
      gpu_hours += double(t.nodes) * gpus * interval / 3600;
    }
    const frugal_cost_ledger l = s.ledger();
    CHECK(l.dollars == Approx(paid).epsilon(1e-12));
    CHECK(l.spot_dollars == Approx(spot).epsilon(1e-12));
    CHECK(l.spot_dollars + l.reserved_dollars == Approx(l.dollars).epsilon(1e-12));
    CHECK(l.productive_dollars + l.stall_dollars + l.lost_dollars == Approx(l.dollars).epsilon(1e-12));
    CHECK(l.productive_s + l.stall_s + l.lost_s == Approx(wall).epsilon(1e-12));
    CHECK(l.wall_s == wall);
    CHECK(l.gpu_hours == Approx(gpu_hours).epsilon(1e-12));
    CHECK(l.restarts == restarts);
    CHECK(l.productive_dollars >= 0);
    CHECK(l.lost_dollars >= 0);
  }
}
