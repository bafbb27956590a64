// The `mpi` communicator: a private duplicate of MPI_COMM_WORLD (or of the
// host's communicator, handed over as its Fortran handle, MPI_Comm_c2f),
// with MPI_ERRORS_RETURN, every collective non-blocking and waited on with
// the call's deadline (mpi_wait.hpp), and optionally a check that every
// rank makes the same call before it runs ("check_calls").
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/mpi_runtime.hpp"
#include "algorithms/mpi_wait.hpp"
#include "algorithms/ring_all_reduce.hpp"
#include "frugal/comm_vtable.h"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::comm_mpi {

class MpiComm {
 public:
  explicit MpiComm(const sdk::Options& options);
  ~MpiComm();
  MpiComm(const MpiComm&) = delete;
  MpiComm& operator=(const MpiComm&) = delete;

  [[nodiscard]] frugal_comm_info info() const;
  std::unique_ptr<MpiComm> split(int32_t color, int32_t key, int64_t timeout_ms);
  void run(const frugal_comm_call& call);

 private:
  // A communicator split made; learns its peers within timeout_ms.
  MpiComm(MPI_Comm comm, bool check_calls, RingSettings ring, int64_t timeout_ms);

  void learn_peers(int64_t timeout_ms);
  // Starts `start` (an MPI_I* call returning its request) and waits for it.
  template <typename Start>
  void run_request(const CallScope& scope, const char* function, Start&& start);
  // check_calls: every rank makes this same call, or every rank fails.
  void check_same_call(const frugal_comm_call& call, const CallScope& scope);
  // Marks the comm (and the process's MPI) broken when `body` throws a
  // failure of the group: a deadline passed or MPI reported a failure.
  template <typename Body>
  void guarded(Body&& body) {
    try {
      body();
    } catch (const sdk::PluginError& e) {
      if (e.code() == FRUGAL_ERR_DEADLINE_EXCEEDED || e.code() == FRUGAL_ERR_IO) {
        broken_ = true;
        mark_broken();
      }
      throw;
    }
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  bool check_calls_ = false;
  // Which all-reduces run as a ring of point-to-point calls
  // (ring_all_reduce.hpp) rather than as one MPI_Iallreduce, and its
  // segment size.
  RingSettings ring_;
  // The ring's receive buffer, kept between calls (calls on one comm are
  // serialised by the core).
  std::vector<std::byte> scratch_;
  bool broken_ = false;
  std::vector<Peer> peers_;
};

}  // namespace frugal::comm_mpi
