// The process's MPI: initialised by the first comm_mpi communicator when
// the host has not done it (MPI_Init_thread, asking for
// MPI_THREAD_MULTIPLE so comms may run on different threads), finalised at
// process exit by whoever initialised it — unless a collective failed,
// because MPI_Finalize waits for every peer and a dead one never comes.
#pragma once

#include <string>

namespace frugal::comm_mpi {

// Initialises MPI if needed. Returns the thread level MPI provides.
// Throws PluginError when MPI was already finalised.
int ensure_initialised();

// A collective failed: the process must not wait for its peers again, so
// no MPI_Finalize at exit.
void mark_broken();

// This host's name, as MPI_Get_processor_name reports it.
std::string processor_name();

}  // namespace frugal::comm_mpi
