#include "scheduler/decision_merge.hpp"

#include <cmath>

#include <fmt/format.h>

#include "error.hpp"

namespace frugal::scheduling {
namespace {

const char* checkpoint_name(int32_t c) { return c == FRUGAL_CKPT_FULL ? "full" : "heartbeat"; }

// "policy: " and the proposal's own words, or the field it set when it
// gave none; appended in place (no temporary strings).
void append_explanation(std::string& out, const Proposal& p, const char* fallback) {
  const char* why = p.decision.reason;
  out += *p.policy;
  out += ": ";
  out += why != nullptr && why[0] != '\0' ? why : fallback;
}

}  // namespace

void check_proposal(const Proposal& p) {
  const frugal_decision& d = p.decision;
  if (d.checkpoint < FRUGAL_CKPT_NONE || d.checkpoint > FRUGAL_CKPT_FULL)
    fail(FRUGAL_ERR_INTERNAL, "policy '{}': proposed checkpoint kind {}, not a frugal_ckpt_kind_values", *p.policy,
         d.checkpoint);
  if (d.resource < FRUGAL_RESOURCE_UNSPECIFIED || d.resource > FRUGAL_RESOURCE_RESERVED)
    fail(FRUGAL_ERR_INTERNAL, "policy '{}': proposed resource class {}, not a frugal_resource_class_values", *p.policy,
         d.resource);
  if (d.stop < FRUGAL_STOP_NONE || d.stop > FRUGAL_STOP_POLICY)
    fail(FRUGAL_ERR_INTERNAL, "policy '{}': proposed stop reason {}, not a frugal_stop_reason_values", *p.policy,
         d.stop);
  if (!std::isfinite(d.next_due_s) || d.next_due_s < 0)
    fail(FRUGAL_ERR_INTERNAL, "policy '{}': proposed next_due_s {}; it must be finite and >= 0", *p.policy,
         d.next_due_s);
}

frugal_decision merge_proposals(const frugal_telemetry& t, double lr, std::span<const Proposal> proposals,
                                bool emergency, std::string& reason) {
  frugal_decision out{};
  out.struct_size = sizeof(out);
  out.lr = lr;
  out.resource = t.resource;
  out.target_nodes = t.nodes;
  const Proposal* checkpoint_by = nullptr;
  const Proposal* resource_by = nullptr;
  const Proposal* nodes_by = nullptr;
  const Proposal* stop_by = nullptr;
  for (const Proposal& p : proposals) {
    const frugal_decision& d = p.decision;
    if (d.checkpoint > out.checkpoint) {
      out.checkpoint = d.checkpoint;
      checkpoint_by = &p;
    }
    if (resource_by == nullptr && d.resource != FRUGAL_RESOURCE_UNSPECIFIED) {
      resource_by = &p;
      out.resource = d.resource;
    }
    if (nodes_by == nullptr && d.target_nodes != 0) {
      nodes_by = &p;
      out.target_nodes = d.target_nodes;
    }
    if (stop_by == nullptr && d.stop != FRUGAL_STOP_NONE) {
      stop_by = &p;
      out.stop = d.stop;
    }
    if (d.next_due_s > 0 && (out.next_due_s == 0 || d.next_due_s < out.next_due_s)) out.next_due_s = d.next_due_s;
  }

  // Clauses only for what asks the host to act, each policy once, in
  // policy order; no allocation on this path (simulators call it millions
  // of times).
  const Proposal* const resource_acts = out.resource != t.resource ? resource_by : nullptr;
  const Proposal* const nodes_act = out.target_nodes != t.nodes ? nodes_by : nullptr;
  reason.clear();
  for (const Proposal& p : proposals) {
    const Proposal* const q = &p;
    if (q != checkpoint_by && q != resource_acts && q != nodes_act && q != stop_by) continue;
    if (!reason.empty()) reason += "; ";
    const char* fallback = q == checkpoint_by ? checkpoint_name(out.checkpoint) : q == stop_by ? "stop" : "resources";
    append_explanation(reason, p, fallback);
  }
  if (emergency && out.checkpoint == FRUGAL_CKPT_NONE) {
    out.checkpoint = FRUGAL_CKPT_HEARTBEAT;
    if (!reason.empty()) reason += "; ";
    reason += fmt::format("scheduler: preemption notice ({} s left): emergency heartbeat", t.preemption_notice_s);
  }
  out.reason = reason.c_str();
  return out;
}

}  // namespace frugal::scheduling
