// The comm_mpi plugin: strategy "mpi" of kind FRUGAL_KIND_COMM.
#include "algorithms/mpi_comm.hpp"
#include "frugal/sdk/comm_adapter.hpp"
#include "frugal/sdk/plugin_declaration.hpp"
#include "plugin/option_decls.hpp"

namespace {

constexpr frugal_strategy_desc kStrategies[] = {frugal::sdk::comm_strategy<frugal::comm_mpi::MpiComm>(
    "mpi",
    "MPI processes, host memory: every collective non-blocking under a deadline (options: fortran_handle, "
    "check_calls, join_timeout_ms)",
    0, &frugal::comm_mpi::kMpiOptions.header)};

constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
    .name = "comm_mpi",
    .version = FRUGAL_VERSION_STRING,
    .vendor = "frugal",
    .license = "MIT",
    .description = "Collectives over the system's MPI; initialises MPI when the host has not, or wraps the host's "
                   "communicator; a dead or stalled peer is an error on every other rank, never a hang",
});

}  // namespace

FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
