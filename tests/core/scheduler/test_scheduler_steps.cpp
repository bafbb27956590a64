// frugal_scheduler_step: malformed telemetry is refused and changes nothing;
// proposals merge by the documented rules and explain themselves; a
// preemption notice always gets a heartbeat; the LR comes from the schedule.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "scheduler_harness.hpp"

using namespace frugal;
using frugal::test::PolicySpec;
using frugal::test::record;
using frugal::test::SchedulerHarness;
using frugal::test::SchedulerSpec;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

SchedulerSpec one_probe(test::OptionList options = {}) { return SchedulerSpec{"", {}, {{"probe_policy", options}}}; }

}  // namespace

TEST_CASE("malformed telemetry is INVALID_ARGUMENT naming the field, and changes nothing") {
  SchedulerHarness s(one_probe());
  s.step(record(100, 10, 2.0));
  const frugal_cost_ledger before = s.ledger();

  struct Case {
    const char* what;
    frugal_telemetry t;
    const char* mention;
  };
  auto with = [](auto change) {
    frugal_telemetry t = record(200, 20, 1.9);
    change(t);
    return t;
  };
  const std::vector<Case> cases = {
      {"NaN loss", with([](auto& t) { t.loss = kNaN; }), "telemetry.loss is nan at step 20"},
      {"infinite loss", with([](auto& t) { t.loss = kInf; }), "telemetry.loss is inf"},
      {"NaN eval loss", with([](auto& t) {
         t.flags = FRUGAL_TELEMETRY_EVAL_LOSS;
         t.eval_loss = kNaN;
       }),
       "telemetry.eval_loss is nan"},
      {"time going back", with([](auto& t) { t.wall_time_s = 99.5; }),
       "telemetry.wall_time_s went back from 100 s to 99.5 s"},
      {"NaN time", with([](auto& t) { t.wall_time_s = kNaN; }), "telemetry.wall_time_s is nan"},
      {"negative price", with([](auto& t) { t.price_per_node_hour = -0.5; }),
       "telemetry.price_per_node_hour is -0.5 at step 20; it must be >= 0"},
      {"no nodes", with([](auto& t) { t.nodes = 0; }), "telemetry.nodes is 0"},
      {"no resource class", with([](auto& t) { t.resource = 0; }), "telemetry.resource is 0"},
      {"unknown resource class", with([](auto& t) { t.resource = 7; }), "telemetry.resource is 7"},
      {"unknown flag", with([](auto& t) { t.flags = 8; }), "unknown bits 0x8"},
      {"step going back", with([](auto& t) { t.step = 9; }),
       "telemetry.step went back from 10 to 9 without FRUGAL_TELEMETRY_RESTARTED"},
      {"tokens going back", with([](auto& t) { t.tokens = 5; }), "telemetry.tokens went back from 10000 to 5"},
      {"negative step", with([](auto& t) { t.step = -1; }), "telemetry.step is -1"},
      {"stall without a checkpoint", with([](auto& t) { t.checkpoint_stall_s = 5; }), "checkpoint_done is NONE"},
      {"stall longer than the interval", with([](auto& t) {
         t.checkpoint_done = FRUGAL_CKPT_FULL;
         t.checkpoint_stall_s = 101;
       }),
       "longer than the 100 s since the previous record"},
      {"negative notice", with([](auto& t) { t.preemption_notice_s = -1; }), "telemetry.preemption_notice_s is -1"},
      {"unknown checkpoint kind", with([](auto& t) { t.checkpoint_done = 3; }), "telemetry.checkpoint_done is 3"},
      {"struct too small", with([](auto& t) { t.struct_size = 40; }), "telemetry->struct_size is 40"},
  };
  for (const Case& c : cases) {
    const test::Outcome result = s.try_step(c.t);
    INFO(c.what << ": " << result.message);
    CHECK(result.code ==
          (c.t.struct_size < sizeof(frugal_telemetry) ? FRUGAL_ERR_ABI_MISMATCH : FRUGAL_ERR_INVALID_ARGUMENT));
    CHECK(contains(result.message, c.mention));
  }
  // Nothing was booked and the probe saw none of them: the next good record
  // is its second.
  const frugal_cost_ledger after = s.ledger();
  CHECK(after.dollars == before.dollars);
  CHECK(after.wall_s == 100);
  s.step(record(200, 20, 1.9));
  CHECK(s.reason().empty());
  SchedulerHarness counting(one_probe({{"checkpoint_every", "2"}}));
  counting.step(record(100, 10, 2.0));
  CHECK(counting.try_step(with([](auto& t) { t.loss = kNaN; })).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(counting.step(record(200, 20, 1.9)).checkpoint == FRUGAL_CKPT_HEARTBEAT);
  CHECK(counting.reason() == "probe_policy: probe at record 2");
}

TEST_CASE("a record from an older caller (smaller struct) reads the missing fields as 0") {
  SchedulerHarness s(one_probe());
  frugal_telemetry t = record(60, 1, 3.0);
  t.preemption_notice_s = 30;  // beyond the declared size: must be ignored
  t.struct_size = offsetof(frugal_telemetry, checkpoint_done);
  const frugal_decision d = s.step(t);
  CHECK(d.checkpoint == FRUGAL_CKPT_NONE);
}

TEST_CASE("a restart may take the step back; the job clock still may not") {
  SchedulerHarness s(one_probe());
  s.step(record(100, 50, 2.0));
  frugal_telemetry resumed = record(400, 40, 2.1);
  resumed.flags = FRUGAL_TELEMETRY_RESTARTED;
  s.step(resumed);
  frugal_telemetry back = record(300, 41, 2.1);
  back.flags = FRUGAL_TELEMETRY_RESTARTED;
  CHECK(contains(s.try_step(back).message, "the job clock never goes back"));
}

TEST_CASE("proposals merge: heaviest checkpoint, first resource / nodes / stop, earliest due time") {
  SchedulerSpec spec{
      "",
      {},
      {{"probe_policy", {{"resource", "2"}, {"checkpoint_every", "1"}, {"reason", "first"}, {"due_in_s", "600"}}},
       {"probe_policy",
        {{"resource", "1"},
         {"nodes", "4"},
         {"checkpoint_every", "2"},
         {"checkpoint_kind", "2"},
         {"reason", "second"},
         {"due_in_s", "300"}}},
       {"probe_policy", {{"nodes", "8"}, {"stop_at_step", "30"}, {"reason", "third"}}}}};
  SchedulerHarness s(spec);
  frugal_decision d = s.step(record(100, 10, 2.0));
  CHECK(d.checkpoint == FRUGAL_CKPT_HEARTBEAT);   // only the first proposes on record 1
  CHECK(d.resource == FRUGAL_RESOURCE_RESERVED);  // the first policy with an opinion wins
  CHECK(d.target_nodes == 4);                     // the second's, not the third's 8
  CHECK(d.stop == FRUGAL_STOP_NONE);
  CHECK(d.next_due_s == 400);  // min(100 + 600, 100 + 300)
  CHECK(s.reason() == "probe_policy: first at record 1; probe_policy: second at record 1");

  d = s.step(record(200, 20, 1.9));
  CHECK(d.checkpoint == FRUGAL_CKPT_FULL);  // the second's full outweighs the first's heartbeat
  CHECK(contains(s.reason(), "second at record 2"));

  d = s.step(record(300, 30, 1.8));
  CHECK(d.stop == FRUGAL_STOP_TARGET);
  CHECK(contains(s.reason(), "probe_policy: third at record 3"));
}

TEST_CASE("without opinions the decision keeps what ran, and the reason is empty") {
  SchedulerHarness s(SchedulerSpec{"", {}, {{"probe_policy", {}}, {"probe_policy", {{"resource", "1"}}}}});
  frugal_telemetry t = record(100, 10, 2.0);
  t.nodes = 3;
  const frugal_decision d = s.step(t);
  CHECK(d.lr == 0.0);  // no schedule
  CHECK(d.checkpoint == FRUGAL_CKPT_NONE);
  CHECK(d.resource == FRUGAL_RESOURCE_SPOT);  // proposed, but it is what ran: nothing to explain
  CHECK(d.target_nodes == 3);
  CHECK(d.stop == FRUGAL_STOP_NONE);
  CHECK(d.next_due_s == 0.0);
  CHECK(s.reason().empty());
}

TEST_CASE("a policy that gives no reason is explained by the field it set") {
  SchedulerHarness s(one_probe({{"checkpoint_every", "1"}, {"checkpoint_kind", "2"}, {"reason", ""}}));
  s.step(record(100, 10, 2.0));
  CHECK(s.reason() == "probe_policy: full");
}

TEST_CASE("the first record of a preemption notice always gets a checkpoint") {
  SchedulerHarness s(one_probe());
  s.step(record(100, 10, 2.0));
  frugal_telemetry notice = record(110, 11, 2.0);
  notice.preemption_notice_s = 120;
  frugal_decision d = s.step(notice);
  CHECK(d.checkpoint == FRUGAL_CKPT_HEARTBEAT);
  CHECK(s.reason() == "scheduler: preemption notice (120 s left): emergency heartbeat");
  notice.wall_time_s = 115;
  notice.preemption_notice_s = 115;
  CHECK(s.step(notice).checkpoint == FRUGAL_CKPT_NONE);  // same notice: asked once
  s.step(record(120, 12, 2.0));                          // the notice is over
  notice.step = 13;
  notice.tokens = 13000;
  notice.wall_time_s = 130;
  notice.preemption_notice_s = 30;
  CHECK(s.step(notice).checkpoint == FRUGAL_CKPT_HEARTBEAT);  // a new one

  // A policy that already asked for a full checkpoint keeps its full.
  SchedulerHarness full(one_probe({{"checkpoint_every", "2"}, {"checkpoint_kind", "2"}}));
  full.step(record(100, 10, 2.0));
  notice.step = 11;
  notice.wall_time_s = 110;
  notice.preemption_notice_s = 120;
  CHECK(full.step(notice).checkpoint == FRUGAL_CKPT_FULL);
  CHECK(full.reason() == "probe_policy: probe at record 2");
}

TEST_CASE("lr is the schedule's at telemetry.step") {
  SchedulerHarness s(SchedulerSpec{"wsd", {{"lr", "1"}, {"total_steps", "100"}, {"decay_steps", "10"}}, {}});
  CHECK(s.step(record(10, 0, 3.0)).lr == 1.0);
  CHECK(s.step(record(20, 95, 3.0)).lr == Approx(0.5));
  CHECK(s.step(record(30, 100, 3.0)).lr == 0.0);
}

TEST_CASE("a policy error comes back prefixed, then the scheduler refuses to go on") {
  SchedulerHarness s(SchedulerSpec{"", {}, {{"probe_policy", {}}, {"probe_policy", {{"fail_at_record", "2"}}}}});
  s.step(record(100, 10, 2.0));
  const test::Outcome failed = s.try_step(record(200, 20, 1.9));
  CHECK(failed.code == FRUGAL_ERR_CANCELLED);
  CHECK(failed.message == "policy 'probe_policy': scripted failure");
  const test::Outcome after = s.try_step(record(300, 30, 1.8));
  CHECK(after.code == FRUGAL_ERR_FAILED_PRECONDITION);
  CHECK(contains(after.message, "failed earlier (at step 20: policy 'probe_policy': scripted failure)"));
  size_t size = 0;
  CHECK(test::outcome(frugal_scheduler_export_state(s.get(), nullptr, 0, &size)).code ==
        FRUGAL_ERR_FAILED_PRECONDITION);
}

TEST_CASE("an invalid proposal is a plugin bug: INTERNAL naming the policy and the field") {
  SchedulerHarness bad_enum(one_probe({{"bad_proposal", "1"}}));
  const test::Outcome a = bad_enum.try_step(record(100, 10, 2.0));
  CHECK(a.code == FRUGAL_ERR_INTERNAL);
  CHECK(a.message == "policy 'probe_policy': proposed checkpoint kind 9, not a frugal_ckpt_kind_values");
  SchedulerHarness bad_due(one_probe({{"bad_proposal", "2"}}));
  const test::Outcome b = bad_due.try_step(record(100, 10, 2.0));
  CHECK(b.code == FRUGAL_ERR_INTERNAL);
  CHECK(contains(b.message, "proposed next_due_s nan"));
}

TEST_CASE("scheduler configuration errors") {
  auto context = test::scheduler_context();
  frugal_scheduler* out = nullptr;
  frugal_scheduler_config config{};
  config.struct_size = sizeof(config);
  const char* unknown[] = {"no_such_policy"};
  config.policies = unknown;
  config.policy_count = 1;
  test::Outcome r = test::outcome(frugal_scheduler_create(context.get(), &config, &out));
  CHECK(r.code == FRUGAL_ERR_NOT_FOUND);
  CHECK(contains(r.message, "no_such_policy"));

  config.policies = nullptr;
  r = test::outcome(frugal_scheduler_create(context.get(), &config, &out));
  CHECK(r.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(contains(r.message, "config.policies is NULL but config.policy_count is 1"));

  config.policy_count = 0;
  config.schedule = "cosine";  // total_steps is required
  r = test::outcome(frugal_scheduler_create(context.get(), &config, &out));
  CHECK(r.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(r.message ==
        "schedule 'cosine': option 'total_steps' is required (step at which the schedule reaches min_lr, > "
        "warmup_steps)");

  config.schedule = nullptr;
  config.reserved0 = 1;
  r = test::outcome(frugal_scheduler_create(context.get(), &config, &out));
  CHECK(contains(r.message, "config.reserved0 is 1"));

  config.reserved0 = 0;
  const char* probe[] = {"probe_policy"};
  config.policies = probe;
  config.policy_count = 1;
  auto options = host::make_options();
  host::check(frugal_options_set_parsed(options.get(), "nodes", "many"));
  const frugal_options* per_policy[] = {options.get()};
  config.policy_options = per_policy;
  r = test::outcome(frugal_scheduler_create(context.get(), &config, &out));
  CHECK(r.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(contains(r.message, "policy 'probe_policy': option 'nodes' has type string; expected int"));
  CHECK(out == nullptr);

  config.struct_size = 16;
  r = test::outcome(frugal_scheduler_create(context.get(), &config, &out));
  CHECK(r.code == FRUGAL_ERR_ABI_MISMATCH);
}
