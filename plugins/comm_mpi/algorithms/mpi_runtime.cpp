#include "algorithms/mpi_runtime.hpp"

#include <mpi.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "frugal/sdk/plugin_support.hpp"

namespace frugal::comm_mpi {
namespace {

std::mutex g_init_mutex;
std::atomic<bool> g_broken{false};

void finalise_at_exit() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (finalised == 0 && !g_broken.load()) MPI_Finalize();
}

}  // namespace

int ensure_initialised() {
  std::lock_guard lock(g_init_mutex);
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (finalised != 0)
    throw sdk::PluginError(FRUGAL_ERR_FAILED_PRECONDITION, "MPI is already finalised in this process");
  int initialised = 0;
  MPI_Initialized(&initialised);
  int provided = MPI_THREAD_SINGLE;
  if (initialised == 0) {
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
      throw sdk::PluginError(FRUGAL_ERR_IO, "MPI_Init_thread failed (is this process started by mpirun?)");
    std::atexit(&finalise_at_exit);  // the plugin is never unloaded (-z nodelete)
    return provided;
  }
  MPI_Query_thread(&provided);
  return provided;
}

void mark_broken() { g_broken.store(true); }

std::string processor_name() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return std::string(name, static_cast<size_t>(length));
}

}  // namespace frugal::comm_mpi
