// Waiting on MPI requests with a deadline, instead of MPI_Wait's forever:
// every collective is started non-blocking and polled here, so a dead or
// stalled peer turns into an error on every rank still running. On a
// timeout the error says which peers on this host have exited (their pids
// are exchanged when the comm is made); peers on other hosts cannot be
// probed from here.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace frugal::comm_mpi {

// A member of the group as seen from this rank.
struct Peer {
  int32_t pid = 0;
  bool same_host = false;
};

// One collective's identity and deadline, for waiting and for errors.
struct CallScope {
  const char* op;
  int rank;
  int size;
  std::chrono::steady_clock::time_point deadline;
  int64_t timeout_ms;
  const std::vector<Peer>* peers;  // nullptr while the comm is being made
};

// "all_reduce on rank 1 of 3": how every error of a call begins.
std::string where(const CallScope& scope);

CallScope scope(const char* op, int rank, int size, int64_t timeout_ms, const std::vector<Peer>* peers);

// Polls until every request completes. Throws PluginError:
// DEADLINE_EXCEEDED past the deadline, IO when MPI reports a failure. The
// requests are abandoned (not freed) then: MPI cannot cancel a collective.
void wait_all(std::span<MPI_Request> requests, const CallScope& scope);

// Throws IO when `rc` is not MPI_SUCCESS (a call that starts a request).
void check_mpi(int rc, const CallScope& scope, const char* function);

// "rank 2 (pid 4242 on this host) has exited", or why none could be named.
std::string missing_peers(const CallScope& scope);

}  // namespace frugal::comm_mpi
