// frugal/sdk/policy_adapter.hpp — declare a cost policy (FRUGAL_KIND_POLICY)
// strategy as a plain C++ class. The class needs:
//   explicit Impl(const frugal::sdk::Options& options);   // validate, throw PluginError
//   void decide(const frugal_telemetry& telemetry, frugal_decision& proposal);
//   std::vector<std::byte> export_state() const;            // versioned, checksummed (sdk/state_blob.hpp)
//   void import_state(std::span<const std::byte> blob);    // leave the state as it was on error
// policy_strategy<Impl>(name, summary, flags) yields its descriptor.
//
// decide receives the telemetry as the scheduler validated it (finite
// values, time and steps in order) and a proposal the scheduler zeroed:
// Impl sets only the fields it has an opinion on. The proposal's `reason`
// must stay valid until the next call on the instance, so Impl points it at
// a string it owns (a member), never at a temporary.
//
// Telemetry and proposals are the core's own structs: the adapter requires
// at least the v2.0 telemetry (a smaller struct is ABI_MISMATCH) and reads
// only v2.0 fields, and writes a proposal smaller than this header's struct
// (an older core) only up to its struct_size. Every slot runs under guard():
// whatever Impl throws becomes a frugal error. A scheduler calls one
// instance from one thread at a time, so Impl needs no lock.
#pragma once

#include <cstddef>
#include <string>

#include "frugal/policy_vtable.h"
#include "frugal/sdk/instance_slots.hpp"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::sdk {

template <typename Impl>
struct PolicyAdapter : InstanceSlots<Impl> {
  using Base = InstanceSlots<Impl>;

  // Through preemption_notice_s, the last field of v2.0.
  static constexpr std::size_t kTelemetryV1Size = offsetof(frugal_telemetry, preemption_notice_s) + sizeof(double);

  static frugal_error* decide(void* instance, const frugal_telemetry* telemetry, frugal_decision* proposal) {
    return Base::call(instance, [&](Impl& impl) {
      if (telemetry == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "decide: telemetry is NULL");
      if (proposal == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "decide: proposal is NULL");
      if (telemetry->struct_size < kTelemetryV1Size) {
        throw PluginError(FRUGAL_ERR_ABI_MISMATCH, "decide: telemetry->struct_size is " +
                                                       std::to_string(telemetry->struct_size) + "; at least " +
                                                       std::to_string(kTelemetryV1Size) + " bytes are required");
      }
      // The common case (a core of this header's version or newer) writes
      // in place; an older, smaller proposal gets the fields that fit.
      if (proposal->struct_size >= sizeof(frugal_decision)) {
        impl.decide(*telemetry, *proposal);
      } else {
        frugal_decision full{};
        full.struct_size = sizeof(full);
        impl.decide(*telemetry, full);
        write_sized_out(proposal, full, "decide: proposal");
      }
    });
  }

  static constexpr frugal_policy_vtable vtable{
      sizeof(frugal_policy_vtable), &Base::create, &Base::destroy, &decide, &Base::export_state, &Base::import_state};
};

// ext: the descriptor's extension chain, e.g. options_ext<kOptions>() (option_decl.hpp).
template <typename Impl>
constexpr frugal_strategy_desc policy_strategy(const char* name, const char* summary, uint32_t flags,
                                               const frugal_ext_header* ext = nullptr) {
  return frugal_strategy_desc{
      sizeof(frugal_strategy_desc), FRUGAL_KIND_POLICY, flags, name, summary, &PolicyAdapter<Impl>::vtable, ext};
}

}  // namespace frugal::sdk
