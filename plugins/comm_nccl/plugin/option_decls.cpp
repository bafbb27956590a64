#include "plugin/option_decls.hpp"

#include "frugal/sdk/option_decl.hpp"

namespace frugal::comm_nccl {
namespace {

// None is required: bootstrap, unique_id and nccl_comm are three ways to
// join, exactly one of which create takes (algorithms/nccl_options.cpp).
constexpr frugal_option_decl kNccl[] = {
    sdk::comm_option("bootstrap",
                     "a host-memory comm of the same ranks (e.g. 'mpi'): its rank 0 makes the NCCL id and broadcasts "
                     "it; rank and size are that comm's"),
    sdk::string_option("unique_id",
                       "the ncclUniqueId as 256 hex digits (ncclGetUniqueId's 128 bytes), the same on every rank; "
                       "with rank and size"),
    sdk::int_option("rank", "this rank, in [0, size); with unique_id").range(0.0, 2147483646.0),
    sdk::int_option("size", "ranks in the group; with unique_id").range(1.0, 2147483647.0),
    sdk::int_option("nccl_comm",
                    "an initialised ncclComm_t, its address as an integer: wrapped, never finalized, destroyed or "
                    "aborted (its owner keeps it)")
        .min(1.0),
    sdk::int_option("device", "the CUDA device of this rank; absent: the current device").range(0.0, 2147483647.0),
    sdk::int_option("join_timeout_ms", "deadline of create (the id exchange and NCCL's init), in milliseconds")
        .default_value("300000")
        .min(1.0),
};

}  // namespace

const frugal_strategy_options_ext kNcclOptions = sdk::DeclaredOptions<kNccl>::ext;

}  // namespace frugal::comm_nccl
