// plateau_autoscaler in process: plateau -> up, fast progress -> down,
// cooldown, bounds, at least one node of change, and a host that has not
// obeyed yet.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "plugin/plateau_autoscaler.hpp"
#include "policy_test_support.hpp"

using namespace frugal::test;
using frugal::policy::plugin::AutoscalerConfig;
using frugal::policy::plugin::PlateauAutoscaler;

namespace {

// 10-minute windows, 1 to 16 nodes, the default thresholds (5% / 20%) and
// factor 2; cooldown as given.
AutoscalerConfig config(double cooldown_s = 1200) {
  AutoscalerConfig c;
  c.max_nodes = 16;
  c.window_s = 600;
  c.cooldown_s = cooldown_s;
  return c;
}

// Records a minute apart from t = 0 to until_s (exclusive), with `nodes`
// reported and loss(t); the targets proposed.
template <class F>
std::vector<Answer> run(PlateauAutoscaler& p, double from_s, double until_s, uint32_t nodes, F loss) {
  std::vector<Answer> out;
  for (double t = from_s; t < until_s; t += 60)
    out.push_back(ask(p, record(t, static_cast<int64_t>(t), loss(t), nodes)));
  return out;
}

}  // namespace

TEST_CASE("a plateau scales up by the factor after two full windows, then again after the next two") {
  PlateauAutoscaler p{config()};
  const auto answers = run(p, 0, 4200, 4, [](double) { return 2.0; });
  // t = 0 .. 1140: two windows fill; the record at 1200 compares them.
  for (int i = 0; i < 20; ++i) CHECK(answers[i].target_nodes == 4);
  CHECK(answers[0].reason == "4 nodes; the loss trend is judged after two 10.0 min windows");
  CHECK(answers[0].next_due_s == 600);
  CHECK(answers[10].next_due_s == 1200);
  CHECK(answers[20].target_nodes == 8);
  CHECK(answers[20].reason == "loss improved 0.0% over the last 10.0 min (plateau, below 5.0%): 4 -> 8 nodes");
  // The windows restarted at the change: the next comparison at 1200 + 2 x 600.
  CHECK(answers[20].next_due_s == 1800);
  for (int i = 21; i < 40; ++i) CHECK(answers[i].target_nodes == 8);
  CHECK(answers[40].target_nodes == 16);
  CHECK(answers[60].target_nodes == 16);
  CHECK(answers[60].reason ==
        "loss improved 0.0% over the last 10.0 min (plateau, below 5.0%): already at the maximum, 16 nodes");
}

TEST_CASE("fast progress scales down; progress in between keeps the count") {
  PlateauAutoscaler p{config()};
  // The loss halves every window: r = 0.5 > 20%.
  const auto fast = run(p, 0, 1260, 16, [](double t) { return 8.0 * std::pow(0.5, std::floor(t / 600)); });
  CHECK(fast[19].target_nodes == 16);
  CHECK(fast[20].target_nodes == 8);
  CHECK(fast[20].reason == "loss improved 50.0% over the last 10.0 min (fast, above 20.0%): 16 -> 8 nodes");

  PlateauAutoscaler q{config()};
  // 10% better per window: between the thresholds.
  const auto steady = run(q, 0, 1260, 4, [](double t) { return 8.0 * std::pow(0.9, std::floor(t / 600)); });
  CHECK(steady[20].target_nodes == 4);
  CHECK(steady[20].reason == "loss improved 10.0% over the last 10.0 min (between 5.0% and 20.0%): keep 4 nodes");
}

TEST_CASE("the cooldown holds the count after a change even when the windows call for another") {
  PlateauAutoscaler p{config(3000)};
  const auto answers = run(p, 0, 4800, 4, [](double) { return 2.0; });
  CHECK(answers[20].target_nodes == 8);  // t = 1200
  // Comparisons at 2400, 3000 and 3600 fall inside the cooldown (until 4200).
  CHECK(answers[40].target_nodes == 8);
  CHECK(answers[40].reason ==
        "loss improved 0.0% over the last 10.0 min (plateau, below 5.0%): keep 8 nodes until the cooldown ends at "
        "4200 s");
  CHECK(answers[50].target_nodes == 8);
  CHECK(answers[60].target_nodes == 8);
  CHECK(answers[69].target_nodes == 8);
  CHECK(answers[70].target_nodes == 16);  // t = 4200
}

TEST_CASE("a worsening loss counts as a plateau; the target is proposed until the host obeys") {
  PlateauAutoscaler p{config()};
  const auto answers = run(p, 0, 1800, 2, [](double t) { return 1.0 + t / 6000.0; });
  CHECK(answers[20].target_nodes == 4);
  CHECK(answers[20].reason.rfind("loss worsened ", 0) == 0);
  // The host keeps reporting 2 nodes: still told 4.
  for (int i = 21; i < 30; ++i) CHECK(answers[i].target_nodes == 4);
}

TEST_CASE("scaling clamps to [min_nodes, max_nodes] and moves at least one node") {
  AutoscalerConfig c = config();
  c.min_nodes = 2;
  c.max_nodes = 5;
  c.scale_factor = 1.2;
  PlateauAutoscaler up{c};
  // The first record's 1 node is clamped to min_nodes.
  const auto plateau = run(up, 0, 3660, 1, [](double) { return 2.0; });
  CHECK(plateau[0].target_nodes == 2);
  CHECK(plateau[20].target_nodes == 3);  // round(2.4) = 2, at least +1
  CHECK(plateau[40].target_nodes == 4);  // round(3.6) = 4
  CHECK(plateau[60].target_nodes == 5);  // round(4.8) = 5

  PlateauAutoscaler down{c};
  const auto fast = run(down, 0, 3660, 9, [](double t) { return 8.0 * std::pow(0.5, std::floor(t / 600)); });
  CHECK(fast[0].target_nodes == 5);      // 9 clamped to max_nodes
  CHECK(fast[20].target_nodes == 4);     // round(4.17) = 4
  CHECK(fast[40].target_nodes == 3);     // round(3.33) = 3
  CHECK(fast[60].target_nodes == 2);     // round(2.5) = 3, at least -1
  CHECK(fast.back().target_nodes == 2);  // already at the minimum
}

TEST_CASE("extreme but legal values: a job clock of 1e300 s") {
  // Window ends at 1e300 + k x 600 all round to 1e300: once an endless loop.
  PlateauAutoscaler p{config()};
  for (int i = 0; i < 5; ++i) CHECK(ask(p, record(1e300, i, 2.0, 4)).target_nodes == 4);
}

TEST_CASE("extreme but legal values: a huge scale_factor") {
  // target x 1e300 once reached llround out of int64's range (on x86 the
  // minimum, clamped to min_nodes, then +1); it scales to max_nodes.
  AutoscalerConfig c = config();
  c.scale_factor = 1e300;
  PlateauAutoscaler up{c};
  const auto plateau = run(up, 0, 1260, 4, [](double) { return 2.0; });
  CHECK(plateau[20].target_nodes == 16);
  CHECK(plateau[20].reason == "loss improved 0.0% over the last 10.0 min (plateau, below 5.0%): 4 -> 16 nodes");
}

TEST_CASE("records flagged FRUGAL_TELEMETRY_NO_LOSS add no sample to the windows") {
  // A plateau at 2.0; in the second window every other record has no loss
  // (0 as the scheduler passes it). Counted, they would halve the mean: a
  // 50% "improvement", fast progress, fewer nodes.
  PlateauAutoscaler p{config()};
  std::vector<Answer> answers;
  for (double t = 0; t < 1260; t += 30) {
    frugal_telemetry r = record(t, static_cast<int64_t>(t), 2.0, 4);
    if (t >= 600 && static_cast<int>(t) % 60 == 30) {
      r.flags = FRUGAL_TELEMETRY_NO_LOSS;
      r.loss = 0.0;
    }
    answers.push_back(ask(p, r));
  }
  CHECK(answers[39].target_nodes == 4);
  CHECK(answers[40].target_nodes == 8);  // t = 1200: the plateau, scaled up
  CHECK(answers[40].reason == "loss improved 0.0% over the last 10.0 min (plateau, below 5.0%): 4 -> 8 nodes");
}
