// All-reduce as a ring: a reduce-scatter then an all-gather, each in
// size - 1 steps of one send to the right neighbour and one receive from
// the left (Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms
// for clusters of workstations", JPDC 2009; the schedule NCCL and Horovod
// use). Every rank sends and receives 2 (size - 1) / size of the buffer,
// the least any all-reduce can, and each step is a pair of non-blocking
// point-to-point calls waited on under the call's deadline, so the ring
// keeps the no-hang rule. Open MPI's MPI_Iallreduce (libnbc) picks a
// slower algorithm than its blocking MPI_Allreduce for mid-size buffers;
// the ring is comm_mpi's answer there (docs/benchmarks.md, comm_bench).
//
// Every chunk is reduced in one fixed order along the ring and then
// copied to every rank, so all ranks end with the same bytes.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "algorithms/mpi_wait.hpp"

namespace frugal::comm_mpi {

// The default of the `ring_min_bytes` option: all-reduces of at least this
// many bytes take the ring (measured: docs/benchmarks.md, comm_bench).
inline constexpr int64_t kDefaultRingMinBytes = int64_t{256} * 1024;

// The default of the `ring_segment_bytes` option. A chunk travels in
// segments of this many bytes (the last one shorter): the receiver
// reduces one while the next arrives, from a scratch slot that stays in
// cache. Each segment costs a rendezvous, so smaller is not better: on
// 2 ranks 256 KiB segments lost a fifth at 4 MiB while 1 MiB kept every
// size from 1 MiB up at or above MPI_Allreduce (docs/benchmarks.md).
inline constexpr int64_t kDefaultRingSegmentBytes = int64_t{1} << 20;
// Its largest value: 1 GiB keeps a segment's element count inside MPI's
// int for every dtype, and the scratch (two segments) a sane size.
inline constexpr int64_t kMaxRingSegmentBytes = int64_t{1} << 30;

// The ring's two options, as the comm was made with them.
struct RingSettings {
  int64_t min_bytes = kDefaultRingMinBytes;          // all-reduces this large take the ring
  int64_t segment_bytes = kDefaultRingSegmentBytes;  // > 0
};

// Chunk c of `count` elements split over `parts` ranks: the first
// count % parts chunks hold one element more.
struct Chunk {
  size_t offset;  // in elements
  size_t count;
};
[[nodiscard]] Chunk ring_chunk(size_t count, int parts, int c);

// Whether the ring can take `count` elements on `size` ranks: every chunk
// must fit MPI's int counts.
[[nodiscard]] bool ring_fits(size_t count, int size);

// recv = the reduction of every rank's send over `comm` (rank, size).
// send may equal recv (in place); chunks travel in segments of
// `segment_bytes` (rounded down to whole elements, at least one).
// `scratch` is reused across calls (two segments' bytes). Throws
// sdk::PluginError (IO, DEADLINE_EXCEEDED).
void ring_all_reduce(const void* send, void* recv, size_t count, size_t element_bytes, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm, int rank, int size, size_t segment_bytes, const CallScope& scope,
                     std::vector<std::byte>& scratch);

}  // namespace frugal::comm_mpi
