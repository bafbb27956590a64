#include "plugin/option_decls.hpp"

#include "algorithms/ring_all_reduce.hpp"
#include "frugal/sdk/option_decl.hpp"

namespace frugal::comm_mpi {
namespace {

constexpr frugal_option_decl kMpi[] = {
    sdk::int_option(
        "fortran_handle",
        "the host's MPI communicator as MPI_Comm_c2f gives it; absent: MPI_COMM_WORLD (duplicated either way)")
        .min(0.0),
    sdk::bool_option("check_calls",
                     "before each collective, check that every rank makes the same call (op, dtype, counts); one "
                     "extra small collective per call")
        .default_value("false"),
    sdk::int_option("ring_min_bytes",
                    "all-reduces of at least this many bytes run as a bandwidth-optimal ring of point-to-point calls "
                    "(reduce-scatter, then all-gather); smaller ones as one MPI_Iallreduce. 0: always the ring")
        .default_value("262144")
        .min(0.0),
    sdk::int_option("ring_segment_bytes",
                    "the ring sends each chunk in segments of this many bytes, so one is reduced while the next "
                    "arrives; each segment costs a rendezvous (1 to 2^30)")
        .default_value("1048576")
        .range(1.0, static_cast<double>(kMaxRingSegmentBytes)),
    sdk::int_option("join_timeout_ms", "deadline for every rank to join the group at create, in milliseconds")
        .default_value("300000")
        .min(1.0),
};

}  // namespace

const frugal_strategy_options_ext kMpiOptions = sdk::DeclaredOptions<kMpi>::ext;

}  // namespace frugal::comm_mpi
