// libFuzzer target: frugal_scheduler_import_state (the scheduler's own
// fields, its ledger, and each policy's blob inside it) through the C API,
// with the four policy_cost strategies configured. A blob is either
// refused (an error; the scheduler unchanged) or accepted, and an accepted
// state must then take valid telemetry, extreme times included, without
// undefined behaviour or an endless loop. Most inputs fail the XXH3
// checksum: seed the corpus with exported blobs.
//
// Build: clang++ -fsanitize=fuzzer,address,undefined against libfrugal;
// FRUGAL_POLICY_COST_PLUGIN is the path of the built policy_cost plugin.
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "frugal/context.h"
#include "frugal/error.h"
#include "frugal/options.h"
#include "frugal/scheduler.h"

#ifndef FRUGAL_POLICY_COST_PLUGIN
#error "define FRUGAL_POLICY_COST_PLUGIN as the path of the policy_cost plugin"
#endif

namespace {

// One context for the whole run (plugins load once); a fresh scheduler per input.
frugal_context* context() {
  static frugal_context* const loaded = [] {
    frugal_context* c = nullptr;
    if (frugal_context_create(&c) != nullptr) __builtin_trap();
    if (frugal_context_load_plugin(c, FRUGAL_POLICY_COST_PLUGIN) != nullptr) __builtin_trap();
    return c;
  }();
  return loaded;
}

frugal_scheduler* make_scheduler() {
  frugal_options* autoscaler = nullptr;
  if (frugal_options_create(&autoscaler) != nullptr) __builtin_trap();
  if (frugal_options_set_parsed(autoscaler, "max_nodes", "64") != nullptr) __builtin_trap();
  const char* names[] = {"checkpoint_cadence", "spot_phase", "plateau_autoscaler", "early_stop"};
  const frugal_options* options[] = {nullptr, nullptr, autoscaler, nullptr};
  frugal_scheduler_config config{};
  config.struct_size = sizeof(config);
  config.policies = names;
  config.policy_options = options;
  config.policy_count = 4;
  frugal_scheduler* scheduler = nullptr;
  if (frugal_scheduler_create(context(), &config, &scheduler) != nullptr) __builtin_trap();
  frugal_options_destroy(autoscaler);  // read during create only
  return scheduler;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  frugal_scheduler* scheduler = make_scheduler();
  frugal_error* error = frugal_scheduler_import_state(scheduler, data, size);
  if (error != nullptr) {
    frugal_error_destroy(error);
  } else {
    frugal_cost_ledger ledger{};
    ledger.struct_size = sizeof(ledger);
    frugal_error_destroy(frugal_scheduler_ledger(scheduler, &ledger));
    const double wall = ledger.wall_s;
    for (const double add : {0.0, 60.0, 1e9, 1e300}) {
      frugal_telemetry t{};
      t.struct_size = sizeof(t);
      t.flags = FRUGAL_TELEMETRY_RESTARTED;
      t.nodes = 2;
      t.loss = 2.0;
      t.wall_time_s = wall + add;
      t.price_per_node_hour = 1.0;
      t.resource = FRUGAL_RESOURCE_SPOT;
      frugal_decision d{};
      d.struct_size = sizeof(d);
      frugal_error_destroy(frugal_scheduler_step(scheduler, &t, &d));
    }
  }
  frugal_scheduler_destroy(scheduler);
  return 0;
}
