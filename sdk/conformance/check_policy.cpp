// Policies (policy_vtable.h): decide over a telemetry stream, NULL and
// undersized arguments refused, state that restores exactly, determinism.
#include <cstring>
#include <vector>

#include "frugal/policy_vtable.h"
#include "strategy_checks.hpp"

namespace frugal::conformance {

namespace {

// Telemetry record `i` of a plausible run: falling then flat loss, spot
// nodes, a checkpoint every 10 records.
frugal_telemetry telemetry(int i) {
  frugal_telemetry t{};
  t.struct_size = sizeof t;
  t.nodes = 4;
  t.step = i * 100;
  t.tokens = static_cast<int64_t>(i) * 100 * 4096;
  t.loss = i < 20 ? 4.0 - 0.1 * i : 2.0;
  t.wall_time_s = 60.0 * i;
  t.price_per_node_hour = 2.5;
  t.resource = FRUGAL_RESOURCE_SPOT;
  t.checkpoint_done = (i % 10 == 9) ? FRUGAL_CKPT_FULL : FRUGAL_CKPT_NONE;
  t.checkpoint_stall_s = (i % 10 == 9) ? 5.0 : 0.0;
  return t;
}

// The proposals' bytes (reason text included) for records [first, last).
std::vector<unsigned char> decide_range(const frugal_policy_vtable* vt, void* instance, int first, int last,
                                        std::string* error = nullptr) {
  std::vector<unsigned char> out;
  for (int i = first; i < last; ++i) {
    const frugal_telemetry t = telemetry(i);
    frugal_decision d{};
    d.struct_size = sizeof d;
    const Error e(vt->decide(instance, &t, &d));
    if (e) {
      if (error) *error = "decide(record " + std::to_string(i) + ") -> " + e.describe();
      out.push_back(0xEE);
      return out;
    }
    const auto* bytes = reinterpret_cast<const unsigned char*>(&d);
    out.insert(out.end(), bytes + offsetof(frugal_decision, lr), bytes + offsetof(frugal_decision, reason));
    if (d.reason) out.insert(out.end(), d.reason, d.reason + std::strlen(d.reason) + 1);
  }
  return out;
}

struct LargerTelemetry {
  frugal_telemetry t;
  unsigned char tail[64];
};

}  // namespace

void check_policy(Checks& c) {
  const auto* vt = static_cast<const frugal_policy_vtable*>(c.s.vtable);
  Instance a = c.create();
  if (!a) return;
  c.begin("decide");
  std::string error;
  const std::vector<unsigned char> first = decide_range(vt, a.get(), 0, 15, &error);
  c.check(error.empty(), "decide", error.empty() ? "decide accepts 15 valid telemetry records" : error);

  c.begin("null-arguments");
  const frugal_telemetry t = telemetry(15);
  frugal_decision d{};
  d.struct_size = sizeof d;
  Instance scratch = c.create("null-arguments");
  if (!scratch) return;
  c.expect_error("null-arguments", "decide(telemetry NULL)", vt->decide(scratch.get(), nullptr, &d));
  c.expect_error("null-arguments", "decide(proposal NULL)", vt->decide(scratch.get(), &t, nullptr));

  c.begin("struct-size");
  {
    Instance small = c.create("struct-size");
    if (!small) return;
    frugal_telemetry tiny = telemetry(0);
    tiny.struct_size = offsetof(frugal_telemetry, step);
    c.expect_error("struct-size",
                   "decide(telemetry struct_size " + std::to_string(tiny.struct_size) +
                       ", below v2.0) (plugin.h: receivers need the required fields)",
                   vt->decide(small.get(), &tiny, &d), FRUGAL_ERR_ABI_MISMATCH);
    Instance big = c.create("struct-size");
    Instance base = c.create("struct-size");
    std::vector<unsigned char> via_big, via_base;
    for (int i = 0; i < 15; ++i) {
      LargerTelemetry lt{};
      lt.t = telemetry(i);
      lt.t.struct_size = sizeof lt;
      frugal_decision p1{}, p2{};
      p1.struct_size = p2.struct_size = sizeof(frugal_decision);
      const Error e1(vt->decide(big.get(), &lt.t, &p1));
      const frugal_telemetry plain = telemetry(i);
      const Error e2(vt->decide(base.get(), &plain, &p2));
      via_big.push_back(e1 ? 1 : 0);
      via_base.push_back(e2 ? 1 : 0);
      for (const auto* p : {&p1, &p2}) {
        auto& dst = p == &p1 ? via_big : via_base;
        const auto* b = reinterpret_cast<const unsigned char*>(p);
        dst.insert(dst.end(), b + offsetof(frugal_decision, lr), b + offsetof(frugal_decision, reason));
      }
    }
    c.check(via_big == via_base, "struct-size",
            "telemetry with struct_size " + std::to_string(sizeof(LargerTelemetry)) +
                " (zeroed tail) gives the proposals of the v2.0 size");
  }

  if (c.s.flags & FRUGAL_STRATEGY_DETERMINISTIC) {
    c.begin("determinism");
    Instance b = c.create("determinism");
    if (b)
      c.check(decide_range(vt, b.get(), 0, 15) == first, "determinism",
              "two instances give identical proposals for one telemetry stream (FRUGAL_STRATEGY_DETERMINISTIC)");
  }
  // a has seen records 0..14; an importer must answer 15.. exactly as a does.
  check_state(c, StateSlots{vt->export_state, vt->import_state}, a.get(), c.create("state"),
              [&](void* instance) { return decide_range(vt, instance, 15, 30); });
}

}  // namespace frugal::conformance
