// export_state / import_state of every strategy: an instance restored
// mid-run answers every later record byte for byte like the original
// (reasons and next_due_s included), and a damaged or foreign blob is
// refused without touching the instance.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "plugin/checkpoint_cadence.hpp"
#include "plugin/early_stop.hpp"
#include "plugin/plateau_autoscaler.hpp"
#include "plugin/spot_phase.hpp"
#include "policy_test_support.hpp"

using namespace frugal::test;
using namespace frugal::policy::plugin;

namespace {

// Exports `original` after each of several split points and checks that
// a fresh instance importing the blob answers the rest exactly as the
// original does; the final blobs are equal too.
template <class Policy, class Config>
void expect_exact_restore(const Config& config) {
  const std::vector<frugal_telemetry> records = busy_day();
  for (const std::size_t split : {1u, 19u, 250u, 301u, 640u, 777u, 1200u, 1439u}) {
    INFO("split at record " << split);
    Policy original{config};
    for (std::size_t i = 0; i < split; ++i) (void)ask(original, records[i]);
    const std::vector<std::byte> blob = original.export_state();
    Policy restored{config};
    restored.import_state(blob);
    CHECK(restored.export_state() == blob);
    for (std::size_t i = split; i < records.size(); ++i) {
      const Answer want = ask(original, records[i]);
      const Answer got = ask(restored, records[i]);
      INFO("record " << i);
      REQUIRE(got == want);
    }
    CHECK(restored.export_state() == original.export_state());
  }
}

CadenceConfig busy_cadence() {
  CadenceConfig c;
  c.heartbeat_interval_s = 900;
  c.full_interval_steps = 6000;  // the script reports a full every 3250 steps: most multiples are met
  c.young_daly = true;
  c.mtbf_s = 7200;
  return c;
}

SpotPhaseConfig busy_spot() {
  SpotPhaseConfig c;
  c.window = 24;
  c.reserved_price = 3.0;
  c.max_preemptions = 2;
  c.preemption_window_s = 3600;
  c.cooldown_s = 1800;
  return c;
}

AutoscalerConfig busy_autoscaler() {
  AutoscalerConfig c;
  c.max_nodes = 12;
  c.window_s = 1800;
  return c;
}

EarlyStopConfig busy_early_stop() {
  EarlyStopConfig c;
  c.patience = 12;
  c.min_delta = 0.001;
  c.mode = frugal::policy::DeltaMode::relative;
  return c;
}

// The script drives every strategy through its interesting states.
template <class Policy, class Config>
std::vector<Answer> full_run(const Config& config) {
  Policy p{config};
  const auto records = busy_day();
  return ask_all(p, std::span(records));
}

}  // namespace

TEST_CASE("the busy day exercises each strategy's states") {
  const auto cadence = full_run<CheckpointCadence>(busy_cadence());
  CHECK(std::count_if(cadence.begin(), cadence.end(), [](const Answer& a) { return a.checkpoint == 2; }) > 5);
  CHECK(std::count_if(cadence.begin(), cadence.end(), [](const Answer& a) { return a.checkpoint == 1; }) > 5);
  const auto spot = full_run<SpotPhase>(busy_spot());
  CHECK(spot[328].resource == FRUGAL_RESOURCE_SPOT);
  CHECK(spot[329].resource == FRUGAL_RESOURCE_RESERVED);  // restarts 30 min apart
  CHECK(spot[419].resource == FRUGAL_RESOURCE_SPOT);      // cooldown over
  CHECK(spot[599].resource == FRUGAL_RESOURCE_RESERVED);  // spot at $2.90 > 0.8 x $3.00
  CHECK(spot[688].resource == FRUGAL_RESOURCE_SPOT);
  CHECK(spot[910].resource == FRUGAL_RESOURCE_SPOT);
  CHECK(spot[911].resource == FRUGAL_RESOURCE_RESERVED);  // the steady descent from t = 50000 s
  CHECK(spot.back().resource == FRUGAL_RESOURCE_RESERVED);
  const auto scaler = full_run<PlateauAutoscaler>(busy_autoscaler());
  CHECK(std::adjacent_find(scaler.begin(), scaler.end(), [](const Answer& a, const Answer& b) {
          return a.target_nodes != b.target_nodes;
        }) != scaler.end());
  const auto stopper = full_run<EarlyStop>(busy_early_stop());
  CHECK(stopper[138].stop == FRUGAL_STOP_NONE);
  CHECK(stopper[139].stop == FRUGAL_STOP_PLATEAU);
}

TEST_CASE("checkpoint_cadence restores exactly") { expect_exact_restore<CheckpointCadence>(busy_cadence()); }

TEST_CASE("spot_phase restores exactly") { expect_exact_restore<SpotPhase>(busy_spot()); }

TEST_CASE("plateau_autoscaler restores exactly") { expect_exact_restore<PlateauAutoscaler>(busy_autoscaler()); }

TEST_CASE("early_stop restores exactly") {
  expect_exact_restore<EarlyStop>(busy_early_stop());
  EarlyStopConfig train = busy_early_stop();
  train.metric = Metric::train;
  train.patience = 3;
  expect_exact_restore<EarlyStop>(train);
}

TEST_CASE("a damaged, truncated, foreign or other-options blob is refused and changes nothing") {
  const auto records = busy_day();
  SpotPhase reference{busy_spot()};
  SpotPhase target{busy_spot()};
  for (std::size_t i = 0; i < 400; ++i) {
    (void)ask(reference, records[i]);
    (void)ask(target, records[i]);
  }
  SpotPhase donor{busy_spot()};
  for (std::size_t i = 0; i < 700; ++i) (void)ask(donor, records[i]);
  const std::vector<std::byte> good = donor.export_state();

  std::vector<std::byte> flipped = good;
  flipped[flipped.size() / 2] ^= std::byte{1};
  auto f = failure([&] { target.import_state(flipped); });
  CHECK(f.first == FRUGAL_ERR_DATA_CORRUPTED);
  CHECK_THAT(f.second, Catch::Contains("spot_phase state: checksum mismatch"));

  const std::vector<std::byte> truncated(good.begin(), good.end() - 9);
  f = failure([&] { target.import_state(truncated); });
  CHECK(f.first == FRUGAL_ERR_DATA_CORRUPTED);

  f = failure([&] { target.import_state(std::span<const std::byte>()); });
  CHECK(f.first == FRUGAL_ERR_DATA_CORRUPTED);
  CHECK_THAT(f.second, Catch::Contains("truncated"));

  CheckpointCadence other{busy_cadence()};
  f = failure([&] { target.import_state(other.export_state()); });
  CHECK(f.first == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK_THAT(f.second, Catch::Contains("magic 'PCCK' is not 'PCSP'"));

  SpotPhaseConfig wider = busy_spot();
  wider.window = 13;
  f = failure([&] { target.import_state(SpotPhase{wider}.export_state()); });
  CHECK(f.first == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK_THAT(f.second, Catch::Contains("other options"));

  // Still the instance it was: it answers the rest like the untouched reference.
  CHECK(target.export_state() == reference.export_state());
  for (std::size_t i = 400; i < records.size(); ++i) REQUIRE(ask(target, records[i]) == ask(reference, records[i]));

  // And the good blob is accepted.
  target.import_state(good);
  CHECK(target.export_state() == good);
}
