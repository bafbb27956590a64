// The policy_cost plugin loaded like any plugin and driven through the
// run scheduler's C API: scripted telemetry against the merged decisions
// and their reasons, option errors, and the scheduler's own export /
// import mid-run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "frugal/scheduler.h"
#include "frugal/sdk/host.hpp"
#include "policy_test_support.hpp"
#include "test_helpers.hpp"

using namespace frugal;
using namespace frugal::test;

namespace {

struct Policy {
  std::string name;
  std::vector<std::pair<std::string, std::string>> options;  // as a config file spells them
};

host::ContextPtr policy_context() {
  auto context = host::make_context();
  host::check(frugal_context_load_plugin(context.get(), builtin_path("policy_cost").c_str()));
  return context;
}

// frugal_scheduler_create for `policies` (no schedule).
frugal_error* create(frugal_context* context, const std::vector<Policy>& policies, host::SchedulerPtr& out) {
  std::vector<host::OptionsPtr> owned;
  std::vector<const char*> names;
  std::vector<const frugal_options*> options;
  for (const Policy& p : policies) {
    owned.push_back(host::make_options());
    for (const auto& [name, text] : p.options)
      host::check(frugal_options_set_parsed(owned.back().get(), name.c_str(), text.c_str()));
    names.push_back(p.name.c_str());
    options.push_back(owned.back().get());
  }
  frugal_scheduler_config config{};
  config.struct_size = sizeof(config);
  config.policies = names.data();
  config.policy_options = options.data();
  config.policy_count = names.size();
  frugal_scheduler* scheduler = nullptr;
  frugal_error* error = frugal_scheduler_create(context, &config, &scheduler);
  out.reset(scheduler);
  return error;
}

class Scheduler {
 public:
  explicit Scheduler(const std::vector<Policy>& policies) : context_(policy_context()) {
    host::check(create(context_.get(), policies, scheduler_));
  }

  // One step; REQUIREs success.
  Answer step(const frugal_telemetry& t) {
    frugal_decision d{};
    d.struct_size = sizeof(d);
    const Outcome result = outcome(frugal_scheduler_step(scheduler_.get(), &t, &d));
    INFO(result.message);
    REQUIRE(result.code == 0);
    return Answer{d.checkpoint, d.resource, d.target_nodes, d.stop, d.next_due_s, d.reason};
  }

  std::vector<std::byte> export_state() {
    size_t size = 0;
    host::check(frugal_scheduler_export_state(scheduler_.get(), nullptr, 0, &size));
    std::vector<std::byte> blob(size);
    host::check(frugal_scheduler_export_state(scheduler_.get(), blob.data(), blob.size(), &size));
    return blob;
  }

  void import_state(const std::vector<std::byte>& blob) {
    host::check(frugal_scheduler_import_state(scheduler_.get(), blob.data(), blob.size()));
  }

 private:
  host::ContextPtr context_;
  host::SchedulerPtr scheduler_;
};

// The error creating a scheduler with one policy gives (code 0: none).
Outcome create_outcome(const Policy& policy) {
  auto context = policy_context();
  host::SchedulerPtr scheduler;
  return outcome(create(context.get(), {policy}, scheduler));
}

// Noise in [-a, a) from mt19937's specified output.
struct Noise {
  std::mt19937 gen;
  explicit Noise(uint32_t seed) : gen(seed) {}
  double operator()(double a) { return a * (2.0 * (static_cast<double>(gen()) / 4294967296.0) - 1.0); }
};

}  // namespace

TEST_CASE("scheduler + plateau_autoscaler: a plateau scales up, fast progress down, the cooldown holds") {
  Scheduler s({{"plateau_autoscaler", {{"max_nodes", "8"}, {"window_s", "600"}, {"cooldown_s", "1800"}}}});
  // Flat until 1 h, then the loss halves every 10-minute window. The host
  // obeys: each record runs on the count the previous decision asked for.
  const auto loss = [](double t) { return t < 3600 ? 2.0 : 2.0 * std::pow(0.5, std::floor((t - 3600) / 600) + 1); };
  uint32_t nodes = 1;
  std::vector<std::pair<double, uint32_t>> changes;
  std::vector<std::string> reasons;
  for (double t = 0; t < 6000; t += 60) {
    const Answer a = s.step(record(t, static_cast<int64_t>(t), loss(t), nodes));
    if (a.target_nodes != nodes) {
      changes.emplace_back(t, a.target_nodes);
      reasons.push_back(a.reason);
    }
    nodes = a.target_nodes;
  }
  // 1200: plateau, 1 -> 2. 2400: plateau again, but within the 1800 s
  // cooldown. 3000: 2 -> 4. 4200: fast, in the cooldown. 4800: 4 -> 2.
  const std::vector<std::pair<double, uint32_t>> want{{1200, 2}, {3000, 4}, {4800, 2}};
  CHECK(changes == want);
  REQUIRE(reasons.size() == 3);
  const std::string plateau = "plateau_autoscaler: loss improved 0.0% over the last 10.0 min (plateau, below 5.0%): ";
  CHECK(reasons[0] == plateau + "1 -> 2 nodes");
  CHECK(reasons[1] == plateau + "2 -> 4 nodes");
  CHECK(reasons[2] ==
        "plateau_autoscaler: loss improved 50.0% over the last 10.0 min (fast, above 20.0%): 4 -> 2 nodes");
}

TEST_CASE("scheduler + spot_phase: a steady descent moves to reserved; a noisy warm-up stays on spot") {
  Scheduler steady({Policy{"spot_phase", {}}});
  Noise noise(1);
  int32_t resource = FRUGAL_RESOURCE_SPOT;
  double moved_at = -1;
  std::string why;
  for (int i = 0; i < 200; ++i) {
    frugal_telemetry r = record(60.0 * i, i, 4.0 - 2e-4 * 60.0 * i + noise(0.002));
    r.resource = resource;
    const Answer a = steady.step(r);
    if (a.resource != resource && moved_at < 0) {
      moved_at = r.wall_time_s;
      why = a.reason;
    }
    resource = a.resource;
  }
  CHECK(moved_at == 60.0 * 59);  // three passing tests, on samples 1-20, 21-40 and 41-60
  CHECK(resource == FRUGAL_RESOURCE_RESERVED);
  CHECK_THAT(why, Catch::StartsWith("spot_phase: loss descends steadily (trend z -6.1"));
  CHECK_THAT(why, Catch::EndsWith("3 passing tests in a row): reserved from now on"));

  Scheduler noisy({Policy{"spot_phase", {}}});
  for (int i = 0; i < 100; ++i) {
    const Answer a = noisy.step(record(60.0 * i, i, 3.0 + noise(0.3)));
    REQUIRE(a.resource == FRUGAL_RESOURCE_SPOT);
    REQUIRE(a.reason.empty());  // nothing to change: no clause
  }
}

TEST_CASE("scheduler + spot_phase: a preemption spike moves to reserved, then back to spot after the cooldown") {
  Scheduler s({{"spot_phase", {{"max_preemptions", "2"}, {"preemption_window_s", "3600"}, {"cooldown_s", "600"}}}});
  Noise noise(4);
  int32_t resource = FRUGAL_RESOURCE_SPOT;
  std::vector<std::pair<double, uint32_t>> switches;
  for (int i = 0; i < 120; ++i) {
    frugal_telemetry r = record(60.0 * i, i, 3.0 + noise(0.3));
    r.resource = resource;
    if (i == 20 || i == 30) r.flags = FRUGAL_TELEMETRY_RESTARTED;
    const Answer a = s.step(r);
    if (a.resource != resource) switches.emplace_back(r.wall_time_s, a.resource);
    resource = a.resource;
  }
  const std::vector<std::pair<double, uint32_t>> want{{1800, FRUGAL_RESOURCE_RESERVED}, {5400, FRUGAL_RESOURCE_SPOT}};
  CHECK(switches == want);
}

TEST_CASE("scheduler + early_stop: patience spent stops with FRUGAL_STOP_PLATEAU, for good") {
  Scheduler s({{"early_stop", {{"patience", "3"}, {"min_delta", "0.01"}}}});
  const std::vector<double> evals{2.0, 1.5, 1.4, 1.395, 1.41, 1.392, 1.0};
  std::vector<Answer> answers;
  for (std::size_t e = 0; e < evals.size(); ++e) {
    for (int k = 1; k <= 10; ++k) {
      const int64_t step = static_cast<int64_t>(e) * 10 + k;
      frugal_telemetry r = record(10.0 * static_cast<double>(step), step, 2.5);
      if (k == 10) {
        r.flags = FRUGAL_TELEMETRY_EVAL_LOSS;
        r.eval_loss = evals[e];
      }
      answers.push_back(s.step(r));
    }
  }
  // Best 1.4 at step 30 (1.395 and 1.392 are within min_delta); spent at step 60.
  for (int i = 0; i < 59; ++i) REQUIRE(answers[i].stop == FRUGAL_STOP_NONE);
  CHECK(answers[59].stop == FRUGAL_STOP_PLATEAU);
  CHECK(answers[59].reason ==
        "early_stop: eval loss did not improve by more than 0.0100 in 3 evaluations: best 1.4000 at step 30");
  for (std::size_t i = 59; i < answers.size(); ++i) REQUIRE(answers[i].stop == FRUGAL_STOP_PLATEAU);
}

TEST_CASE("scheduler + checkpoint_cadence: heartbeats on the timer, a full by steps") {
  Scheduler s({{"checkpoint_cadence", {{"heartbeat_interval_s", "600"}, {"full_interval_steps", "1000"}}}});
  uint32_t pending = FRUGAL_CKPT_NONE;
  std::vector<std::pair<double, uint32_t>> taken;
  for (int i = 1; i <= 110; ++i) {
    frugal_telemetry r = record(60.0 * i, 10 * i, 2.0);
    r.checkpoint_done = pending;  // the host takes each checkpoint during the next interval
    const Answer a = s.step(r);
    if (a.checkpoint != FRUGAL_CKPT_NONE) taken.emplace_back(r.wall_time_s, a.checkpoint);
    if (i == 10) CHECK(a.reason == "checkpoint_cadence: heartbeat interval 10.0 min elapsed since job time 0 s");
    if (i == 100) CHECK(a.reason == "checkpoint_cadence: full-checkpoint interval of 1000 steps reached since step 0");
    if (i == 1) CHECK(a.next_due_s == 600);
    pending = a.checkpoint;
  }
  const std::vector<std::pair<double, uint32_t>> want{{600, 1},  {1260, 1}, {1920, 1}, {2580, 1}, {3240, 1},
                                                      {3900, 1}, {4560, 1}, {5220, 1}, {5880, 1}, {6000, 2}};
  CHECK(taken == want);
}

TEST_CASE("scheduler + checkpoint_cadence: Young/Daly gives ~117 min for delta 300 s and M 24 h, both measured") {
  // The cost prior (checkpoint_cost_s, 60 s) is far from the truth and the
  // MTBF prior (24 h) counts as one failure: both are measured.
  Scheduler s({{"checkpoint_cadence", {{"young_daly", "true"}}}});
  // The host takes 300 s for every full (the record after a proposal comes
  // 360 s later and reports the stall); two restarts in two days make the
  // measured M = (24 h prior + 48 h) / 3 = 24 h at the 48 h mark.
  double t = 0;
  int64_t step = 0;
  bool pending_full = false;
  int restarts = 0;
  double second_restart = 0;
  std::vector<double> fulls;
  std::string reason_after_second;
  while (t < 180000) {
    const bool full_done = pending_full;
    t += full_done ? 360 : 60;
    step += 10;
    frugal_telemetry r = record(t, step, 2.0);
    if (full_done) {
      r.checkpoint_done = FRUGAL_CKPT_FULL;
      r.checkpoint_stall_s = 300;
    }
    // The second restart lands 7000 s before the 48 h mark, so the next full falls due right at it.
    if ((restarts == 0 && t >= 100000) || (restarts == 1 && t >= 172800 - 7000)) {
      r.flags = FRUGAL_TELEMETRY_RESTARTED;
      r.checkpoint_done = FRUGAL_CKPT_NONE;
      r.checkpoint_stall_s = 0;
      if (++restarts == 2) second_restart = t;
    }
    const Answer a = s.step(r);
    pending_full = a.checkpoint == FRUGAL_CKPT_FULL;
    if (pending_full) {
      fulls.push_back(t);
      if (restarts == 2 && reason_after_second.empty()) reason_after_second = a.reason;
    }
  }
  REQUIRE(restarts == 2);
  REQUIRE(fulls.size() > 15);
  const auto first_after = std::find_if(fulls.begin(), fulls.end(), [&](double f) { return f > second_restart; });
  REQUIRE(first_after != fulls.end());
  CHECK((*first_after - second_restart) / 60.0 == Approx(117.0).margin(1.0));
  CHECK(reason_after_second == "checkpoint_cadence: young/daly interval 116.7 min (cost 300 s, MTBF 24.0 h) elapsed");
}

TEST_CASE("scheduler + checkpoint_cadence: an emergency checkpoint on the first record of a notice") {
  Scheduler s({{"checkpoint_cadence", {{"checkpoint_cost_s", "45"}}}});
  CHECK(s.step(record(60, 1, 2.0)).checkpoint == FRUGAL_CKPT_NONE);
  frugal_telemetry notice = record(120, 2, 2.0);
  notice.preemption_notice_s = 120;  // 45 s fits in 0.5 x 120 s
  const Answer full = s.step(notice);
  CHECK(full.checkpoint == FRUGAL_CKPT_FULL);
  CHECK(full.reason ==
        "checkpoint_cadence: preemption notice 120 s: full checkpoint (a full stalls ~45 s, within 0.50 x the notice)");
  notice.wall_time_s = 130;
  CHECK(s.step(notice).checkpoint == FRUGAL_CKPT_NONE);  // the same notice

  Scheduler gcp({{"checkpoint_cadence", {{"checkpoint_cost_s", "45"}}}});
  frugal_telemetry short_notice = record(60, 1, 2.0);
  short_notice.preemption_notice_s = 30;
  const Answer hb = gcp.step(short_notice);
  CHECK(hb.checkpoint == FRUGAL_CKPT_HEARTBEAT);
  CHECK(hb.reason ==
        "checkpoint_cadence: preemption notice 30 s: heartbeat only (a full stalls ~45 s, more than "
        "0.50 x the notice)");
}

TEST_CASE("bad options are errors naming the policy and the option") {
  // The core checks each option against its declaration first (OUT_OF_RANGE
  // outside a declared bound, "= value is out of range"); exclusive bounds
  // and constraints between options are the plugin's ("must be ..., got").
  constexpr int kRange = FRUGAL_ERR_OUT_OF_RANGE;
  constexpr int kInvalid = FRUGAL_ERR_INVALID_ARGUMENT;
  const std::vector<std::tuple<Policy, int, std::string>> cases{
      {{"spot_phase", {{"window", "3"}}}, kRange, "option 'window' = 3 is out of range: must be [5, 1000]"},
      {{"spot_phase", {{"window", "5000"}}}, kRange, "option 'window' = 5000 is out of range: must be [5, 1000]"},
      {{"spot_phase", {{"windw", "30"}}}, kInvalid, "unknown option 'windw'"},
      {{"spot_phase", {{"z_threshold", "0"}}}, kRange, "option 'z_threshold' must be a finite number > 0; got 0"},
      {{"spot_phase", {{"cooldown_s", "nan"}}}, kRange, "option 'cooldown_s'"},
      {{"plateau_autoscaler", {}}, kInvalid, "option 'max_nodes' is required"},
      {{"plateau_autoscaler", {{"max_nodes", "2"}, {"min_nodes", "4"}}},
       kInvalid,
       "option 'max_nodes' must be >= 'min_nodes' (4), got 2"},
      {{"plateau_autoscaler", {{"max_nodes", "8"}, {"plateau_improvement", "0.3"}}},
       kInvalid,
       "option 'fast_improvement' must be > 'plateau_improvement' (0.3), got 0.2"},
      {{"plateau_autoscaler", {{"max_nodes", "8"}, {"scale_factor", "1"}}},
       kRange,
       "option 'scale_factor' must be a finite number > 1; got 1"},
      {{"early_stop", {{"metric", "val"}}}, kInvalid, "option 'metric' = 'val' is not one of 'eval', 'train'"},
      {{"early_stop", {{"patience", "0"}}}, kRange, "option 'patience' = 0 is out of range: must be >= 1"},
      {{"early_stop", {{"mode", "percent"}}}, kInvalid, "option 'mode' = 'percent' is not one of 'absolute'"},
      {{"checkpoint_cadence", {{"notice_safety", "1.5"}}},
       kRange,
       "option 'notice_safety' = 1.5 is out of range: must be <= 1"},
      {{"checkpoint_cadence", {{"mtbf_s", "0"}}}, kRange, "option 'mtbf_s' must be a finite number > 0; got 0"},
      {{"checkpoint_cadence", {{"full_interval_steps", "-1"}}},
       kRange,
       "option 'full_interval_steps' = -1 is out of range: must be >= 0"},
      {{"checkpoint_cadence", {{"young_daly", "yes"}}}, kInvalid, "young_daly"},
  };
  for (const auto& [policy, code, mention] : cases) {
    INFO(policy.name << " " << (policy.options.empty() ? "" : policy.options[0].first));
    const Outcome o = create_outcome(policy);
    CHECK(o.code == code);
    CHECK_THAT(o.message, Catch::Contains("policy '" + policy.name + "'"));
    CHECK_THAT(o.message, Catch::Contains(mention));
  }
  // And the defaults are valid (plateau_autoscaler needs only max_nodes).
  for (const char* name : {"checkpoint_cadence", "spot_phase", "early_stop"})
    CHECK(create_outcome({name, {}}).code == 0);
  CHECK(create_outcome({"plateau_autoscaler", {{"max_nodes", "4"}}}).code == 0);
}

TEST_CASE("a scheduler restored mid-run from its exported state decides exactly like the original") {
  const std::vector<Policy> policies{
      {"checkpoint_cadence",
       {{"heartbeat_interval_s", "900"}, {"full_interval_steps", "3000"}, {"young_daly", "true"}, {"mtbf_s", "7200"}}},
      {"spot_phase",
       {{"window", "12"},
        {"reserved_price", "3.0"},
        {"max_preemptions", "2"},
        {"preemption_window_s", "3600"},
        {"cooldown_s", "1800"}}},
      {"plateau_autoscaler", {{"max_nodes", "12"}, {"window_s", "1800"}}},
      {"early_stop", {{"patience", "12"}, {"min_delta", "0.001"}, {"mode", "relative"}}},
  };
  const std::vector<frugal_telemetry> records = busy_day();
  for (const std::size_t split : {7u, 333u, 650u, 1111u}) {
    INFO("export after record " << split);
    Scheduler original(policies);
    for (std::size_t i = 0; i < split; ++i) (void)original.step(records[i]);
    const std::vector<std::byte> blob = original.export_state();
    Scheduler restored(policies);
    restored.import_state(blob);
    std::size_t explained = 0;
    for (std::size_t i = split; i < records.size(); ++i) {
      const Answer want = original.step(records[i]);
      const Answer got = restored.step(records[i]);
      INFO("record " << i);
      REQUIRE(got == want);
      explained += want.reason.empty() ? 0 : 1;
    }
    CHECK(explained > 0);  // the comparison covered decisions that act, not only silence
    CHECK(restored.export_state() == original.export_state());
  }
}

TEST_CASE("scheduler + early_stop (train): steps without a loss yet are no observations") {
  // A host without a loss for the first steps once had to send a
  // placeholder; 0 was a best nothing could beat, and patience 3 stopped
  // at step 3. Flagged FRUGAL_TELEMETRY_NO_LOSS, any value (NaN too) is ignored.
  Scheduler s({{"early_stop", {{"metric", "train"}, {"patience", "3"}}}});
  for (int64_t step = 0; step < 5; ++step) {
    frugal_telemetry r = record(10.0 * static_cast<double>(step + 1), step, step % 2 == 0 ? 0.0 : std::nan(""));
    r.flags = FRUGAL_TELEMETRY_NO_LOSS;
    REQUIRE(s.step(r).stop == FRUGAL_STOP_NONE);
  }
  double loss = 3.0;
  for (int64_t step = 5; step < 30; ++step, loss *= 0.99)
    REQUIRE(s.step(record(10.0 * static_cast<double>(step + 1), step, loss)).stop == FRUGAL_STOP_NONE);
  // Patience still counts real records: three without improvement stop.
  for (int64_t step = 30; step < 32; ++step)
    CHECK(s.step(record(10.0 * static_cast<double>(step + 1), step, 5.0)).stop == FRUGAL_STOP_NONE);
  const Answer stop = s.step(record(330, 32, 5.0));
  CHECK(stop.stop == FRUGAL_STOP_PLATEAU);
  CHECK(stop.reason ==
        "early_stop: train loss did not improve by more than 0.0000 in 3 records: best 2.3570 at step 29");
}
