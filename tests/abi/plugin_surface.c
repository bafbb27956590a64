/*
 * The plugin-side half of the ABI, made visible to libabigail.
 *
 * libfrugal exports no function that takes the host table, the plugin and
 * strategy descriptors or the vtables, so its ABI baseline cannot see them.
 * This tiny library exports one function per minor whose parameters reach
 * every one of those types; abidw of it is the second committed baseline
 * (abi/baseline/plugin_surface.2.N.abi) and the ABI gate checks it like
 * libfrugal. A minor adds a function for its new types (so the older
 * baselines still see the functions they knew, unchanged).
 * The gate's break tests also compile it against modified header copies.
 */
#include "frugal/comm_vtable.h"
#include "frugal/packer_vtable.h"
#include "frugal/plugin.h"
#include "frugal/policy_vtable.h"
#include "frugal/quantizer_vtable.h"
#include "frugal/router_vtable.h"
#include "frugal/schedule_vtable.h"
#include "frugal/store_vtable.h"

/**
 * Reaches every plugin-side type; the body only keeps each parameter used.
 * Returns the sum of the struct_size fields of the non-NULL arguments.
 */
FRUGAL_API size_t frugal_plugin_surface(const frugal_host_api* host, const frugal_plugin_desc* plugin,
                                        const frugal_strategy_desc* strategy, frugal_plugin_init_fn entry,
                                        const frugal_schedule_vtable* schedule, const frugal_store_vtable* store,
                                        const frugal_packer_vtable* packer, const frugal_policy_vtable* policy,
                                        const frugal_quantizer_vtable* quantizer, const frugal_router_vtable* router) {
  size_t total = entry != NULL ? 1u : 0u;
  total += host != NULL ? host->struct_size : 0u;
  total += plugin != NULL ? plugin->struct_size : 0u;
  total += strategy != NULL ? strategy->struct_size : 0u;
  total += schedule != NULL ? schedule->struct_size : 0u;
  total += store != NULL ? store->struct_size : 0u;
  total += packer != NULL ? packer->struct_size : 0u;
  total += policy != NULL ? policy->struct_size : 0u;
  total += quantizer != NULL ? quantizer->struct_size : 0u;
  total += router != NULL ? router->struct_size : 0u;
  return total;
}

/** ABI 2.1: the comm kind's plugin-side types. Same contract as above. */
FRUGAL_API size_t frugal_plugin_surface_2_1(const frugal_comm_vtable* comm, const frugal_comm_call* call,
                                            const frugal_comm_info* info) {
  size_t total = comm != NULL ? comm->struct_size : 0u;
  total += call != NULL ? call->struct_size : 0u;
  total += info != NULL ? info->struct_size : 0u;
  return total;
}
