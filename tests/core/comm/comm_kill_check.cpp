// comm_kill_check TIMEOUT_MS: under mpirun, the last rank is killed
// (SIGKILL) just as the others enter an all_reduce. Every survivor must
// get an error within the deadline naming the operation, itself and the
// dead rank, then find the comm broken, and exit 0. Each survivor prints
// one "survivor R: ok" line; run_kill_check.sh counts them.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "frugal/sdk/host.hpp"

namespace host = frugal::host;

namespace {

int fail(int rank, const std::string& why) {
  std::printf("survivor %d: FAILED: %s\n", rank, why.c_str());
  std::fflush(stdout);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: comm_kill_check TIMEOUT_MS COMM_MPI_PLUGIN\n");
    return 2;
  }
  const int64_t timeout_ms = std::atoll(argv[1]);
  auto context = host::make_context();
  host::check(frugal_context_load_plugin(context.get(), argv[2]));
  auto comm = host::make_comm(context.get(), "mpi", nullptr);
  host::check(frugal_comm_set_timeout(comm.get(), timeout_ms));
  const int rank = frugal_comm_rank(comm.get());
  const int size = frugal_comm_size(comm.get());
  host::check(frugal_comm_barrier(comm.get()));  // everyone is alive here
  if (rank == size - 1) {
    usleep(200 * 1000);  // let the others be inside the all_reduce
    raise(SIGKILL);
  }
  std::vector<double> values(1 << 16, 1.0);
  int64_t extent = static_cast<int64_t>(values.size());
  frugal_tensor view{};
  view.struct_size = sizeof(view);
  view.data = values.data();
  view.dtype = FRUGAL_DTYPE_FLOAT64;
  view.ndim = 1;
  view.device = {FRUGAL_DEVICE_CPU, 0};
  view.shape = &extent;
  const auto start = std::chrono::steady_clock::now();
  frugal_error* error = frugal_comm_all_reduce(comm.get(), &view, &view, FRUGAL_REDUCE_SUM);
  const auto waited =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  if (error == nullptr) return fail(rank, "the all_reduce with a dead peer succeeded");
  const int32_t code = frugal_error_code(error);
  const std::string message = frugal_error_message(error);
  frugal_error_destroy(error);
  if (code != FRUGAL_ERR_DEADLINE_EXCEEDED && code != FRUGAL_ERR_IO)
    return fail(rank, "code " + std::to_string(code) + ": " + message);
  const std::string me = "all_reduce on rank " + std::to_string(rank) + " of " + std::to_string(size);
  if (message.find(me) == std::string::npos) return fail(rank, "the error does not say '" + me + "': " + message);
  const std::string dead = "rank " + std::to_string(size - 1) + " (pid";
  if (code == FRUGAL_ERR_DEADLINE_EXCEEDED && message.find(dead) == std::string::npos)
    return fail(rank, "the error does not name the dead " + dead + "...): " + message);
  if (waited > timeout_ms + 10000) return fail(rank, "the error came after " + std::to_string(waited) + " ms");
  frugal_error* again = frugal_comm_barrier(comm.get());
  const std::string again_message = again != nullptr ? frugal_error_message(again) : "";
  const int32_t again_code = frugal_error_code(again);
  frugal_error_destroy(again);
  if (again_code != FRUGAL_ERR_FAILED_PRECONDITION || again_message.find("broken") == std::string::npos)
    return fail(rank, "a call after the failure gave code " + std::to_string(again_code) + ": " + again_message);
  comm.reset();
  context.reset();
  std::printf("survivor %d: ok after %lld ms: %s\n", rank, static_cast<long long>(waited), message.c_str());
  std::fflush(stdout);
  return 0;
}
