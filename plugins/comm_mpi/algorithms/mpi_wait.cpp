#include "algorithms/mpi_wait.hpp"

#include <sched.h>
#include <signal.h>

#include <cerrno>

#include "frugal/sdk/plugin_support.hpp"

namespace frugal::comm_mpi {
namespace {

std::string mpi_error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(text, static_cast<size_t>(length));
}

}  // namespace

std::string where(const CallScope& s) {
  return std::string(s.op) + " on rank " + std::to_string(s.rank) + " of " + std::to_string(s.size);
}

CallScope scope(const char* op, int rank, int size, int64_t timeout_ms, const std::vector<Peer>* peers) {
  return {op, rank, size, std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms), timeout_ms, peers};
}

void check_mpi(int rc, const CallScope& scope, const char* function) {
  if (rc != MPI_SUCCESS)
    throw sdk::PluginError(FRUGAL_ERR_IO, where(scope) + ": " + function + " failed: " + mpi_error_text(rc));
}

std::string missing_peers(const CallScope& scope) {
  if (scope.peers == nullptr) return "the group's members are not known yet";
  std::string gone;
  for (size_t r = 0; r < scope.peers->size(); ++r) {
    const Peer& p = (*scope.peers)[r];
    if (static_cast<int>(r) == scope.rank || !p.same_host) continue;
    if (::kill(p.pid, 0) != 0 && errno == ESRCH)
      gone += (gone.empty() ? "" : ", ") + std::string("rank ") + std::to_string(r) + " (pid " + std::to_string(p.pid) +
              " on this host)";
  }
  if (!gone.empty()) return gone + " has exited";
  return "every peer on this host is still running: a peer is stalled, calls another collective, or died on "
         "another host";
}

void wait_all(std::span<MPI_Request> requests, const CallScope& scope) {
  // Spin while the answer is likely near; past that, yield the core: ranks
  // share cores when a job is oversubscribed, and a spinning waiter would
  // starve the peer it waits for.
  constexpr int kSpinPolls = 256;
  for (int polls = 0;; ++polls) {
    int done = 0;
    const int rc = MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
      throw sdk::PluginError(FRUGAL_ERR_IO, where(scope) + ": MPI reported a failure: " + mpi_error_text(rc));
    if (done != 0) return;
    if (std::chrono::steady_clock::now() >= scope.deadline)
      throw sdk::PluginError(FRUGAL_ERR_DEADLINE_EXCEEDED,
                             where(scope) + ": no answer within " + std::to_string(scope.timeout_ms) + " ms; " +
                                 missing_peers(scope) + ". The comm is broken: destroy it and end the process");
    if (polls >= kSpinPolls) sched_yield();
  }
}

}  // namespace frugal::comm_mpi
