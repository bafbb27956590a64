// A policy plugin for the core scheduler's tests: it proposes exactly what
// its options script, so the tests can check how the core merges, explains,
// validates and checkpoints proposals without depending on real policies.
// Written against the raw C ABI (no sdk helpers), as a minimal vendor would.
//
// Strategy "probe_policy". Options (all optional):
//   checkpoint_every (int, 0 = never): propose `checkpoint_kind` on every
//       n-th record; checkpoint_kind (int, 1 heartbeat | 2 full; default 1)
//   resource (int 0..2), nodes (int >= 0): proposed on every record
//   stop_at_step (int, -1 = never): propose FRUGAL_STOP_TARGET from that step
//   due_in_s (double, 0 = none): next_due_s = wall_time_s + due_in_s
//   fail_at_record (int, 0 = never): decide fails (FRUGAL_ERR_CANCELLED)
//   bad_proposal (int, 0 = none): 1 an invalid checkpoint action, 2 a NaN due time
//   reason (string, "probe"): the reason text; "" gives a NULL reason
//   refuse_import (bool): import_state always fails
// State: the records seen and the sum of their losses; the reason text
// carries the record count, so a restored instance is told apart from a
// fresh one.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "frugal/plugin.h"
#include "frugal/policy_vtable.h"

namespace {

struct Probe {
  const frugal_host_api* host;
  int64_t checkpoint_every, checkpoint_kind, resource, nodes, stop_at_step, fail_at_record, bad_proposal;
  double due_in_s;
  std::string reason_prefix;
  bool refuse_import;
  int64_t records = 0;  // state
  double loss_sum = 0;  // state
  std::string reason;   // the last proposal's text (valid until the next call)
};

constexpr char kMagic[4] = {'P', 'R', 'B', '1'};
constexpr size_t kStateSize = sizeof(kMagic) + sizeof(int64_t) + sizeof(double);

frugal_error* first_error(const frugal_host_api* host, frugal_error* a, frugal_error* b) {
  if (a == nullptr) return b;
  if (b != nullptr) host->error_destroy(b);
  return a;
}

frugal_error* create(const frugal_host_api* host, const frugal_options* options, void** instance) {
  Probe p{host, 0, 1, 0, 0, -1, 0, 0, 0.0, "probe", false, 0, 0.0, {}};
  const char* reason = nullptr;
  int32_t refuse = 0;
  frugal_error* e = nullptr;
  e = first_error(host, e, host->option_get_int(options, "checkpoint_every", 0, &p.checkpoint_every));
  e = first_error(host, e, host->option_get_int(options, "checkpoint_kind", 1, &p.checkpoint_kind));
  e = first_error(host, e, host->option_get_int(options, "resource", 0, &p.resource));
  e = first_error(host, e, host->option_get_int(options, "nodes", 0, &p.nodes));
  e = first_error(host, e, host->option_get_int(options, "stop_at_step", -1, &p.stop_at_step));
  e = first_error(host, e, host->option_get_int(options, "fail_at_record", 0, &p.fail_at_record));
  e = first_error(host, e, host->option_get_int(options, "bad_proposal", 0, &p.bad_proposal));
  e = first_error(host, e, host->option_get_double(options, "due_in_s", 0.0, &p.due_in_s));
  e = first_error(host, e, host->option_get_string(options, "reason", "probe", &reason));
  e = first_error(host, e, host->option_get_bool(options, "refuse_import", 0, &refuse));
  if (e != nullptr) return e;
  p.reason_prefix = reason != nullptr ? reason : "";
  p.refuse_import = refuse != 0;
  *instance = new Probe(p);
  return nullptr;
}

void destroy(void* instance) { delete static_cast<Probe*>(instance); }

frugal_error* decide(void* instance, const frugal_telemetry* t, frugal_decision* out) {
  Probe& p = *static_cast<Probe*>(instance);
  ++p.records;
  p.loss_sum += t->loss;
  if (p.fail_at_record != 0 && p.records == p.fail_at_record)
    return p.host->error_create(FRUGAL_ERR_CANCELLED, "scripted failure");
  if (p.checkpoint_every > 0 && p.records % p.checkpoint_every == 0)
    out->checkpoint = static_cast<int32_t>(p.checkpoint_kind);
  out->resource = static_cast<int32_t>(p.resource);
  out->target_nodes = static_cast<uint32_t>(p.nodes);
  if (p.stop_at_step >= 0 && t->step >= p.stop_at_step) out->stop = FRUGAL_STOP_TARGET;
  if (p.due_in_s > 0) out->next_due_s = t->wall_time_s + p.due_in_s;
  if (p.bad_proposal == 1) out->checkpoint = 9;
  if (p.bad_proposal == 2) out->next_due_s = std::numeric_limits<double>::quiet_NaN();
  if (p.reason_prefix.empty()) {
    out->reason = nullptr;
  } else {
    p.reason = p.reason_prefix + " at record " + std::to_string(p.records);
    out->reason = p.reason.c_str();
  }
  return nullptr;
}

frugal_error* export_state(void* instance, void* buffer, size_t capacity, size_t* size) {
  const Probe& p = *static_cast<const Probe*>(instance);
  *size = kStateSize;
  if (buffer == nullptr) return nullptr;
  if (capacity < kStateSize) return p.host->error_create(FRUGAL_ERR_OUT_OF_RANGE, "buffer too small");
  auto* out = static_cast<unsigned char*>(buffer);
  std::memcpy(out, kMagic, sizeof(kMagic));
  std::memcpy(out + 4, &p.records, sizeof(p.records));
  std::memcpy(out + 12, &p.loss_sum, sizeof(p.loss_sum));
  return nullptr;
}

frugal_error* import_state(void* instance, const void* data, size_t size) {
  Probe& p = *static_cast<Probe*>(instance);
  if (p.refuse_import) return p.host->error_create(FRUGAL_ERR_INVALID_ARGUMENT, "scripted import refusal");
  const auto* in = static_cast<const unsigned char*>(data);
  if (size != kStateSize || std::memcmp(in, kMagic, sizeof(kMagic)) != 0)
    return p.host->error_create(FRUGAL_ERR_DATA_CORRUPTED, "not a probe_policy state");
  std::memcpy(&p.records, in + 4, sizeof(p.records));
  std::memcpy(&p.loss_sum, in + 12, sizeof(p.loss_sum));
  return nullptr;
}

constexpr frugal_policy_vtable kVtable{
    sizeof(frugal_policy_vtable), &create, &destroy, &decide, &export_state, &import_state};
constexpr frugal_strategy_desc kStrategy{sizeof(frugal_strategy_desc),
                                         FRUGAL_KIND_POLICY,
                                         FRUGAL_STRATEGY_DETERMINISTIC,
                                         "probe_policy",
                                         "proposes what its options script (scheduler tests)",
                                         &kVtable,
                                         nullptr};
constexpr const frugal_strategy_desc* kStrategies[] = {&kStrategy};
constexpr frugal_plugin_desc kPlugin{sizeof(frugal_plugin_desc),
                                     FRUGAL_ABI_VERSION_MAJOR,
                                     FRUGAL_ABI_VERSION_MINOR,
                                     "probe_policy",
                                     "1.0.0",
                                     "frugal tests",
                                     "MIT",
                                     1,
                                     kStrategies,
                                     "a scriptable policy for the scheduler tests",
                                     nullptr,
                                     nullptr};

}  // namespace

extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* frugal_plugin_init_v2(const frugal_host_api*,
                                                                    const frugal_plugin_desc** out) {
  *out = &kPlugin;
  return nullptr;
}
