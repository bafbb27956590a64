#include "algorithms/ring_all_reduce.hpp"

#include <array>
#include <climits>
#include <cstring>

namespace frugal::comm_mpi {
namespace {

// Tags keep the two phases apart should a fast rank start the all-gather
// while its neighbour still drains the reduce-scatter.
constexpr int kReduceScatterTag = 0x6672;
constexpr int kAllGatherTag = 0x6673;

int wrap(int c, int size) { return ((c % size) + size) % size; }

char* at(void* base, Chunk c, size_t element_bytes) { return static_cast<char*>(base) + c.offset * element_bytes; }
const char* at(const void* base, Chunk c, size_t element_bytes) {
  return static_cast<const char*>(base) + c.offset * element_bytes;
}

// One ring step: `out` to the right neighbour, `in` from the left one.
void exchange(const void* out, int out_count, void* in, int in_count, MPI_Datatype type, int tag, MPI_Comm comm,
              int rank, int size, const CallScope& scope) {
  std::array<MPI_Request, 2> requests{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  check_mpi(MPI_Irecv(in, in_count, type, wrap(rank - 1, size), tag, comm, &requests[0]), scope, "MPI_Irecv");
  check_mpi(MPI_Isend(out, out_count, type, wrap(rank + 1, size), tag, comm, &requests[1]), scope, "MPI_Isend");
  wait_all(requests, scope);
}

}  // namespace

Chunk ring_chunk(size_t count, int parts, int c) {
  const auto p = static_cast<size_t>(parts);
  const auto i = static_cast<size_t>(c);
  const size_t base = count / p;
  const size_t extra = count % p;
  return {i * base + (i < extra ? i : extra), base + (i < extra ? 1 : 0)};
}

bool ring_fits(size_t count, int size) {
  return size > 0 && ring_chunk(count, size, 0).count <= static_cast<size_t>(INT_MAX);
}

void ring_all_reduce(const void* send, void* recv, size_t count, size_t element_bytes, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm, int rank, int size, const CallScope& scope, std::vector<std::byte>& scratch) {
  const bool in_place = send == recv;
  const size_t largest = ring_chunk(count, size, 0).count;
  if (scratch.size() < largest * element_bytes) scratch.resize(largest * element_bytes);
  // Reduce-scatter. Step k sends the chunk this rank finished last step
  // (at k = 0 its own data) and receives the left neighbour's partial sum
  // of chunk rank - k - 1, which it adds its own data to. After size - 1
  // steps chunk rank + 1 holds every rank's contribution.
  for (int k = 0; k < size - 1; ++k) {
    const Chunk out = ring_chunk(count, size, wrap(rank - k, size));
    const Chunk in = ring_chunk(count, size, wrap(rank - k - 1, size));
    const char* out_data =
        k == 0 ? at(send, out, element_bytes) : at(static_cast<const void*>(recv), out, element_bytes);
    exchange(out_data, static_cast<int>(out.count), scratch.data(), static_cast<int>(in.count), type, kReduceScatterTag,
             comm, rank, size, scope);
    char* mine = at(recv, in, element_bytes);
    if (!in_place) std::memcpy(mine, at(send, in, element_bytes), in.count * element_bytes);
    // Local and bounded: MPI_Reduce_local waits on no peer.
    if (in.count > 0)
      check_mpi(MPI_Reduce_local(scratch.data(), mine, static_cast<int>(in.count), type, op), scope,
                "MPI_Reduce_local");
  }
  // All-gather. Step k passes on the finished chunk rank + 1 - k and
  // receives chunk rank - k, finished by a rank to the left, into place.
  for (int k = 0; k < size - 1; ++k) {
    const Chunk out = ring_chunk(count, size, wrap(rank + 1 - k, size));
    const Chunk in = ring_chunk(count, size, wrap(rank - k, size));
    exchange(at(static_cast<const void*>(recv), out, element_bytes), static_cast<int>(out.count),
             at(recv, in, element_bytes), static_cast<int>(in.count), type, kAllGatherTag, comm, rank, size, scope);
  }
}

}  // namespace frugal::comm_mpi
