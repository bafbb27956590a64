// The collective checks every comm backend must pass, on any group size:
// each rank computes what every rank sends (a function of the sender, the
// receiver and the index), so the expected result of each collective is
// known on every rank without trusting the backend.
#pragma once

#include <cstdint>
#include <string>

#include "frugal/frugal.h"

namespace frugal::test {

// Every collective, every dtype it takes, blocks of `count` elements
// (odd, and large enough to leave MPI's eager path where it matters).
void check_every_collective(frugal_comm* comm, size_t count);

// The uneven all-to-all-v and all-gather-v cases: counts of 0, 1, 2 and
// more per peer, packed and gapped displacements, gaps left untouched.
void check_uneven_collectives(frugal_comm* comm);

// Runs every collective of check_every_collective on both comms (groups
// of one) with the same inputs and requires byte-equal outputs.
void check_same_results(frugal_comm* a, frugal_comm* b);

}  // namespace frugal::test
