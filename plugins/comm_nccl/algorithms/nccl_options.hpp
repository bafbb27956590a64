// The options of an `nccl` comm, read and checked before any CUDA or NCCL
// call, so a refused create touches no device (and refuses the same way on
// a machine without a GPU). plugin/option_decls.cpp declares them; the core
// checks names, types and declared ranges first, and this checks them again
// (a host calling the vtable directly gets the same refusals) together with
// what one declaration cannot say: which options go together.
//
// How a rank finds its group, exactly one of:
//   bootstrap   a frugal comm of the same ranks in host memory ("mpi"):
//               rank and size are its own; its rank 0 makes the NCCL id
//               and broadcasts it through the host table's comm_run;
//   unique_id   the id as 256 hex digits, with `rank` and `size` (how a
//               torch user hands over an id from torch.distributed's store);
//   nccl_comm   an initialised ncclComm_t, its address as an int: wrapped,
//               never finalized, destroyed or aborted (the caller owns it).
// Any of them takes `device` (default: the current device; with nccl_comm
// it must be the communicator's) and join_timeout_ms.
#pragma once

#include <cstdint>
#include <optional>

#include "algorithms/unique_id.hpp"
#include "frugal/comm_vtable.h"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::comm_nccl {

enum class Bootstrap { comm, unique_id, wrap };

struct NcclOptions {
  Bootstrap how = Bootstrap::unique_id;
  frugal_comm* bootstrap = nullptr;  // Bootstrap::comm; valid during create only
  UniqueIdBytes unique_id{};         // Bootstrap::unique_id
  std::uintptr_t nccl_comm = 0;      // Bootstrap::wrap
  int32_t rank = 0;                  // unique_id: given; comm: the bootstrap comm's
  int32_t size = 1;
  std::optional<int32_t> device;  // absent: the current device
  int64_t join_timeout_ms = FRUGAL_COMM_DEFAULT_TIMEOUT_MS;
};

// Reads and checks every option. Throws sdk::PluginError (or the host's
// error for an ill-typed value) naming the option: INVALID_ARGUMENT for an
// unknown option, a missing or second way to join, an option that does not
// apply to the chosen way, a malformed unique_id or a bootstrap comm on a
// device; OUT_OF_RANGE for a number outside its range (rank >= size among
// them). Reads the bootstrap comm's rank and size through the host table
// (comm_info); nothing else leaves the process.
NcclOptions read_options(const sdk::Options& options);

}  // namespace frugal::comm_nccl
