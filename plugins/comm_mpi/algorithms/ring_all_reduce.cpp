#include "algorithms/ring_all_reduce.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <span>

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
                     MPI_Comm comm, int rank, int size, size_t segment_bytes, const CallScope& scope,
                     std::vector<std::byte>& scratch) {
  const bool in_place = send == recv;
  const size_t segment = std::max<size_t>(1, segment_bytes / element_bytes);
  if (scratch.size() < 2 * segment * element_bytes) scratch.resize(2 * segment * element_bytes);
  std::vector<MPI_Request> sends;
  // Reduce-scatter. Step k sends the chunk this rank finished last step
  // (at k = 0 its own data) and receives the left neighbour's partial sum
  // of chunk rank - k - 1, which it adds its own data to. After size - 1
  // steps chunk rank + 1 holds every rank's contribution. Each chunk
  // travels as segments; the receiver keeps two in flight, so one is
  // reduced while the next arrives, and reads what it reduces from a
  // scratch slot that is still in cache.
  for (int k = 0; k < size - 1; ++k) {
    const Chunk out = ring_chunk(count, size, wrap(rank - k, size));
    const Chunk in = ring_chunk(count, size, wrap(rank - k - 1, size));
    const char* out_data =
        k == 0 ? at(send, out, element_bytes) : at(static_cast<const void*>(recv), out, element_bytes);
    const size_t in_segments = (in.count + segment - 1) / segment;
    auto slot = [&](size_t s) { return scratch.data() + (s % 2) * segment * element_bytes; };
    auto length = [&](size_t total, size_t s) { return static_cast<int>(std::min(segment, total - s * segment)); };
    std::array<MPI_Request, 2> receives{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    auto receive = [&](size_t s) {
      check_mpi(MPI_Irecv(slot(s), length(in.count, s), type, wrap(rank - 1, size), kReduceScatterTag, comm,
                          &receives[s % 2]),
                scope, "MPI_Irecv");
    };
    for (size_t s = 0; s < std::min<size_t>(2, in_segments); ++s) receive(s);
    sends.assign((out.count + segment - 1) / segment, MPI_REQUEST_NULL);
    for (size_t s = 0; s < sends.size(); ++s)
      check_mpi(MPI_Isend(out_data + s * segment * element_bytes, length(out.count, s), type, wrap(rank + 1, size),
                          kReduceScatterTag, comm, &sends[s]),
                scope, "MPI_Isend");
    char* mine = at(recv, in, element_bytes);
    for (size_t s = 0; s < in_segments; ++s) {
      wait_all(std::span(&receives[s % 2], 1), scope);
      char* target = mine + s * segment * element_bytes;
      const int n = length(in.count, s);
      if (!in_place)
        std::memcpy(target, at(send, in, element_bytes) + s * segment * element_bytes,
                    static_cast<size_t>(n) * element_bytes);
      // Local and bounded: MPI_Reduce_local waits on no peer.
      check_mpi(MPI_Reduce_local(slot(s), target, n, type, op), scope, "MPI_Reduce_local");
      if (s + 2 < in_segments) receive(s + 2);
    }
    wait_all(sends, scope);
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
