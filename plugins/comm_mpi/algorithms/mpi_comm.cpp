// Making, splitting and leaving an `mpi` communicator.
#include "algorithms/mpi_comm.hpp"

#include <unistd.h>

#include <array>
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "algorithms/mpi_runtime.hpp"
#include "algorithms/ring_all_reduce.hpp"

namespace frugal::comm_mpi {
namespace {

// The options, all read and checked before MPI is touched, so a refused
// create leaves the process's MPI as it was. The core checks the declared
// ranges (option_decls.cpp) before create; a host calling the vtable
// directly gets the same refusals here.
struct MpiOptions {
  std::optional<MPI_Fint> fortran_handle;  // absent: MPI_COMM_WORLD
  bool check_calls = false;
  RingSettings ring;
  int64_t join_timeout_ms = FRUGAL_COMM_DEFAULT_TIMEOUT_MS;
};

MpiOptions read_options(const sdk::Options& options) {
  options.check_known({"fortran_handle", "check_calls", "ring_min_bytes", "ring_segment_bytes", "join_timeout_ms"});
  MpiOptions out;
  if (options.has("fortran_handle"))
    out.fortran_handle =
        static_cast<MPI_Fint>(options.get_int_in("fortran_handle", 0, 0, std::numeric_limits<MPI_Fint>::max()));
  out.check_calls = options.get_bool("check_calls", false);
  out.ring.min_bytes = options.get_int_in("ring_min_bytes", kDefaultRingMinBytes, 0);
  out.ring.segment_bytes = options.get_int_in("ring_segment_bytes", kDefaultRingSegmentBytes, 1, kMaxRingSegmentBytes);
  out.join_timeout_ms = options.get_int_in("join_timeout_ms", FRUGAL_COMM_DEFAULT_TIMEOUT_MS, 1);
  return out;
}

MPI_Comm base_comm(const MpiOptions& options) {
  if (!options.fortran_handle) return MPI_COMM_WORLD;
  const MPI_Comm comm = MPI_Comm_f2c(*options.fortran_handle);
  if (comm == MPI_COMM_NULL)
    throw sdk::PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'fortran_handle' names MPI_COMM_NULL");
  return comm;
}

}  // namespace

MpiComm::MpiComm(const sdk::Options& given) {
  const MpiOptions options = read_options(given);
  check_calls_ = options.check_calls;
  ring_ = options.ring;
  const bool we_initialised = [] {
    int initialised = 0;
    MPI_Initialized(&initialised);
    return initialised == 0;
  }();
  ensure_initialised();
  const MPI_Comm base = base_comm(options);
  // A world we brought up reports failures to us rather than aborting;
  // the host's own communicators keep the handlers the host chose.
  if (we_initialised) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int64_t timeout_ms = options.join_timeout_ms;
  int base_rank = 0;
  int base_size = 1;
  MPI_Comm_rank(base, &base_rank);
  MPI_Comm_size(base, &base_size);
  const CallScope join = scope("create", base_rank, base_size, timeout_ms, nullptr);
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Comm_idup(base, &comm_, &request), join, "MPI_Comm_idup");
  try {
    wait_all(std::span(&request, 1), join);
  } catch (...) {
    mark_broken();
    comm_ = MPI_COMM_NULL;  // never usable: a peer did not join
    broken_ = true;
    throw;
  }
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  learn_peers(timeout_ms);
}

MpiComm::MpiComm(MPI_Comm comm, bool check_calls, RingSettings ring, int64_t timeout_ms)
    : comm_(comm), check_calls_(check_calls), ring_(ring) {
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  learn_peers(timeout_ms);
}

MpiComm::~MpiComm() {
  // After a failure a request may still be pending on comm_: leave it.
  if (!broken_ && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

frugal_comm_info MpiComm::info() const {
  frugal_comm_info out{};
  out.struct_size = sizeof(out);
  out.rank = rank_;
  out.size = size_;
  out.device_type = FRUGAL_DEVICE_CPU;
  return out;
}

void MpiComm::learn_peers(int64_t timeout_ms) {
  guarded([&] {
    const CallScope s = scope("create", rank_, size_, timeout_ms, nullptr);
    const int64_t host = static_cast<int64_t>(std::hash<std::string>{}(processor_name()));
    const std::array<int64_t, 2> mine = {static_cast<int64_t>(::getpid()), host};
    std::vector<int64_t> all(2 * static_cast<size_t>(size_));
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Iallgather(mine.data(), 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, comm_, &request), s,
              "MPI_Iallgather");
    wait_all(std::span(&request, 1), s);
    peers_.resize(static_cast<size_t>(size_));
    for (size_t r = 0; r < peers_.size(); ++r) peers_[r] = {static_cast<int32_t>(all[2 * r]), all[2 * r + 1] == host};
  });
}

std::unique_ptr<MpiComm> MpiComm::split(int32_t color, int32_t key, int64_t timeout_ms) {
  std::unique_ptr<MpiComm> out;
  guarded([&] {
    // MPI has no non-blocking split: meet first under the deadline, so a
    // dead peer is an error here and MPI_Comm_split then runs with every
    // rank present.
    const CallScope s = scope("split", rank_, size_, timeout_ms, &peers_);
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Ibarrier(comm_, &request), s, "MPI_Ibarrier");
    wait_all(std::span(&request, 1), s);
    MPI_Comm sub = MPI_COMM_NULL;
    check_mpi(MPI_Comm_split(comm_, color == FRUGAL_COMM_COLOR_NONE ? MPI_UNDEFINED : color, key, &sub), s,
              "MPI_Comm_split");
    if (sub != MPI_COMM_NULL) out.reset(new MpiComm(sub, check_calls_, ring_, timeout_ms));
  });
  return out;
}

}  // namespace frugal::comm_mpi
