// Shared pieces of the policy_cost tests: telemetry records, one
// proposal's observable content, and driving a strategy (in process, the
// classes the plugin wraps) over a script of records.
#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "frugal/sdk/plugin_support.hpp"
#include "frugal/telemetry.h"

namespace frugal::test {

// One record: `nodes` nodes on spot at $1 per node-hour, no checkpoint, no notice.
inline frugal_telemetry record(double wall_s, int64_t step, double loss, uint32_t nodes = 1) {
  frugal_telemetry t{};
  t.struct_size = sizeof(t);
  t.nodes = nodes;
  t.step = step;
  t.tokens = step * 1000;
  t.loss = loss;
  t.wall_time_s = wall_s;
  t.price_per_node_hour = 1.0;
  t.resource = FRUGAL_RESOURCE_SPOT;
  return t;
}

// What a proposal says, with its reason copied out.
struct Answer {
  int32_t checkpoint = 0;
  int32_t resource = 0;
  uint32_t target_nodes = 0;
  int32_t stop = 0;
  double next_due_s = 0.0;
  std::string reason;  // "" when NULL

  friend bool operator==(const Answer&, const Answer&) = default;
};

inline std::ostream& operator<<(std::ostream& os, const Answer& a) {
  return os << "{checkpoint " << a.checkpoint << ", resource " << a.resource << ", nodes " << a.target_nodes
            << ", stop " << a.stop << ", next_due " << a.next_due_s << ", '" << a.reason << "'}";
}

// One decide call on a fresh, zeroed proposal (as the scheduler makes them).
template <class Policy>
Answer ask(Policy& policy, const frugal_telemetry& t) {
  frugal_decision d{};
  d.struct_size = sizeof(d);
  policy.decide(t, d);
  return Answer{d.checkpoint, d.resource, d.target_nodes, d.stop, d.next_due_s, d.reason ? d.reason : ""};
}

// A day of records a minute apart that takes every strategy through its
// states: a loss that wanders, then descends with noise and rare spikes;
// node counts that change; evaluations every 10 records; four restarts
// (three close together); heartbeats and fulls reported done on a fixed
// pattern; an hour of expensive spot and some records on reserved; two
// preemption notices. Fixed, so it does not depend on what is proposed,
// and valid for the scheduler's telemetry checks.
std::vector<frugal_telemetry> busy_day();

template <class Policy>
std::vector<Answer> ask_all(Policy& policy, std::span<const frugal_telemetry> records) {
  std::vector<Answer> out;
  out.reserve(records.size());
  for (const frugal_telemetry& t : records) out.push_back(ask(policy, t));
  return out;
}

// The code and message of the PluginError `f` throws; {0, ""} when it
// throws nothing.
template <class F>
std::pair<int32_t, std::string> failure(F&& f) {
  try {
    f();
  } catch (const sdk::PluginError& e) {
    return {e.code(), e.what()};
  }
  return {0, ""};
}

}  // namespace frugal::test
