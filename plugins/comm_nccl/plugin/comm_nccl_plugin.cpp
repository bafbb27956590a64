// The comm_nccl plugin: strategy "nccl" of kind FRUGAL_KIND_COMM.
#include "algorithms/nccl_comm.hpp"
#include "frugal/sdk/comm_adapter.hpp"
#include "frugal/sdk/plugin_declaration.hpp"
#include "plugin/option_decls.hpp"

namespace {

constexpr frugal_strategy_desc kStrategies[] = {frugal::sdk::comm_strategy<frugal::comm_nccl::NcclComm>(
    "nccl",
    "NCCL, one CUDA device per rank, device memory: non-blocking communicator, every call under a deadline "
    "(options: bootstrap | unique_id + rank + size | nccl_comm, device, join_timeout_ms)",
    0, &frugal::comm_nccl::kNcclOptions.header)};

constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
    .name = "comm_nccl",
    .version = FRUGAL_VERSION_STRING,
    .vendor = "frugal",
    .license = "MIT",
    .description = "Collectives over NCCL on CUDA device memory; joins through a host comm, an ncclUniqueId or "
                   "wraps the host's communicator; a dead or stalled peer is an error on every other rank, never a "
                   "hang",
});

}  // namespace

FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
