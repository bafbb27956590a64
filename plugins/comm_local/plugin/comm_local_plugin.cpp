// The comm_local plugin: strategy "local" of kind FRUGAL_KIND_COMM.
#include "algorithms/local_comm.hpp"
#include "frugal/sdk/comm_adapter.hpp"
#include "frugal/sdk/option_decl.hpp"
#include "frugal/sdk/plugin_declaration.hpp"

namespace {

constexpr frugal_strategy_desc kStrategies[] = {frugal::sdk::comm_strategy<frugal::comm_local::LocalComm>(
    "local", "a group of one process in host memory: every collective is a copy (no options)",
    FRUGAL_STRATEGY_DETERMINISTIC, &frugal::sdk::kNoOptions.header)};

constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
    .name = "comm_local",
    .version = FRUGAL_VERSION_STRING,
    .vendor = "frugal",
    .license = "MIT",
    .description = "Collectives on one rank, so a single-process job runs the same code as a multi-rank one",
});

}  // namespace

FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
