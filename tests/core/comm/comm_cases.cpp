#include "comm_cases.hpp"

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstring>
#include <functional>
#include <vector>

#include "formats/half.hpp"
#include "frugal/sdk/host.hpp"

namespace frugal::test {
namespace {

namespace host = frugal::host;

// A compact 1-D tensor owning its bytes.
struct Buffer {
  int32_t dtype;
  size_t bytes_per;
  std::vector<std::byte> bytes;
  int64_t extent;
  frugal_tensor view{};

  Buffer(int32_t type, size_t count) : dtype(type), bytes_per(frugal_dtype_bits(type) / 8u), bytes(count * bytes_per) {
    extent = static_cast<int64_t>(count);
    view.struct_size = sizeof(view);
    view.data = bytes.data();
    view.dtype = dtype;
    view.ndim = 1;
    view.device = {FRUGAL_DEVICE_CPU, 0};
    view.shape = &extent;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  [[nodiscard]] size_t count() const { return bytes.size() / bytes_per; }

  // Numeric element access for the reducible dtypes.
  void set(size_t i, double v) {
    std::byte* p = bytes.data() + i * bytes_per;
    switch (dtype) {
      case FRUGAL_DTYPE_FLOAT32: store(p, static_cast<float>(v)); break;
      case FRUGAL_DTYPE_FLOAT64: store(p, v); break;
      case FRUGAL_DTYPE_FLOAT16: store(p, quant::fp32_to_fp16(static_cast<float>(v))); break;
      case FRUGAL_DTYPE_BFLOAT16: store(p, quant::fp32_to_bf16(static_cast<float>(v))); break;
      case FRUGAL_DTYPE_INT32: store(p, static_cast<int32_t>(v)); break;
      case FRUGAL_DTYPE_INT64: store(p, static_cast<int64_t>(v)); break;
      case FRUGAL_DTYPE_UINT8: store(p, static_cast<uint8_t>(v)); break;
      default: FAIL("not a reducible dtype");
    }
  }
  [[nodiscard]] double get(size_t i) const {
    const std::byte* p = bytes.data() + i * bytes_per;
    switch (dtype) {
      case FRUGAL_DTYPE_FLOAT32: return load<float>(p);
      case FRUGAL_DTYPE_FLOAT64: return load<double>(p);
      case FRUGAL_DTYPE_FLOAT16: return quant::fp16_to_fp32(load<uint16_t>(p));
      case FRUGAL_DTYPE_BFLOAT16: return quant::bf16_to_fp32(load<uint16_t>(p));
      case FRUGAL_DTYPE_INT32: return load<int32_t>(p);
      case FRUGAL_DTYPE_INT64: return static_cast<double>(load<int64_t>(p));
      case FRUGAL_DTYPE_UINT8: return load<uint8_t>(p);
      default: FAIL("not a reducible dtype");
    }
    return 0;
  }

 private:
  template <typename T>
  static void store(std::byte* p, T v) {
    std::memcpy(p, &v, sizeof v);
  }
  template <typename T>
  static T load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
};

// A small integer every dtype holds exactly, as do sums over <= 8 ranks;
// never negative for uint8.
double value(int rank, size_t i, int32_t dtype) {
  const auto v = static_cast<double>((static_cast<size_t>(rank) * 7 + i * 3) % 13);
  return dtype == FRUGAL_DTYPE_UINT8 ? v : v - 6.0;
}

// The byte a sender puts at byte b of element k of the part for `to`.
std::byte pattern(int from, int to, size_t k, size_t b) {
  return static_cast<std::byte>((from * 37 + to * 11 + k * 5 + b * 3 + 1) & 0xFF);
}

void fill_part(Buffer& buf, size_t first, size_t n, int from, int to) {
  for (size_t k = 0; k < n; ++k)
    for (size_t b = 0; b < buf.bytes_per; ++b) buf.bytes[(first + k) * buf.bytes_per + b] = pattern(from, to, k, b);
}

bool part_is(const Buffer& buf, size_t first, size_t n, int from, int to) {
  for (size_t k = 0; k < n; ++k)
    for (size_t b = 0; b < buf.bytes_per; ++b)
      if (buf.bytes[(first + k) * buf.bytes_per + b] != pattern(from, to, k, b)) return false;
  return true;
}

constexpr std::array kReducible = {FRUGAL_DTYPE_FLOAT32,  FRUGAL_DTYPE_FLOAT64, FRUGAL_DTYPE_FLOAT16,
                                   FRUGAL_DTYPE_BFLOAT16, FRUGAL_DTYPE_INT32,   FRUGAL_DTYPE_INT64,
                                   FRUGAL_DTYPE_UINT8};
// One dtype per element width, and the fp8 and bool ones that only move.
constexpr std::array kMovable = {FRUGAL_DTYPE_FLOAT64,       FRUGAL_DTYPE_FLOAT32, FRUGAL_DTYPE_BFLOAT16,
                                 FRUGAL_DTYPE_FLOAT8_E4M3FN, FRUGAL_DTYPE_BOOL,    FRUGAL_DTYPE_INT8};
constexpr std::array kReduceOps = {FRUGAL_REDUCE_SUM, FRUGAL_REDUCE_MAX, FRUGAL_REDUCE_MIN};

double reduce(int32_t op, double a, double b) {
  return op == FRUGAL_REDUCE_SUM ? a + b : op == FRUGAL_REDUCE_MAX ? std::max(a, b) : std::min(a, b);
}

// Each recv buffer, in order, when recording for check_same_results.
using Outputs = std::vector<std::vector<std::byte>>;

void record(Outputs* out, const Buffer& b) {
  if (out != nullptr) out->push_back(b.bytes);
}

void run_all(frugal_comm* comm, size_t n, Outputs* out) {
  const int rank = frugal_comm_rank(comm);
  const int size = frugal_comm_size(comm);
  const auto ranks = static_cast<size_t>(size);
  for (const int32_t dtype : kReducible)
    for (const int32_t op : kReduceOps) {
      if (dtype == FRUGAL_DTYPE_UINT8 && op == FRUGAL_REDUCE_SUM) continue;
      INFO("dtype " << frugal_dtype_name(dtype) << ", reduce_op " << op);
      // all_reduce, out of place and in place.
      Buffer send(dtype, n), recv(dtype, n), inplace(dtype, n);
      for (size_t i = 0; i < n; ++i) {
        send.set(i, value(rank, i, dtype));
        inplace.set(i, value(rank, i, dtype));
      }
      host::check(frugal_comm_all_reduce(comm, &send.view, &recv.view, op));
      host::check(frugal_comm_all_reduce(comm, &inplace.view, &inplace.view, op));
      size_t wrong = 0;
      for (size_t i = 0; i < n; ++i) {
        double expected = value(0, i, dtype);
        for (int r = 1; r < size; ++r) expected = reduce(op, expected, value(r, i, dtype));
        wrong += recv.get(i) != expected || inplace.get(i) != expected;
      }
      CHECK(wrong == 0);
      record(out, recv);
      // reduce_scatter: block b of send is for rank b.
      Buffer scatter_send(dtype, n * ranks), scatter_recv(dtype, n);
      for (size_t i = 0; i < n * ranks; ++i) scatter_send.set(i, value(rank, i, dtype));
      host::check(frugal_comm_reduce_scatter(comm, &scatter_send.view, &scatter_recv.view, op));
      wrong = 0;
      for (size_t i = 0; i < n; ++i) {
        const size_t at = static_cast<size_t>(rank) * n + i;
        double expected = value(0, at, dtype);
        for (int r = 1; r < size; ++r) expected = reduce(op, expected, value(r, at, dtype));
        wrong += scatter_recv.get(i) != expected;
      }
      CHECK(wrong == 0);
      record(out, scatter_recv);
    }
  for (const int32_t dtype : kMovable) {
    INFO("dtype " << frugal_dtype_name(dtype));
    // broadcast from the last rank.
    Buffer bcast(dtype, n);
    fill_part(bcast, 0, n, rank, -1);
    host::check(frugal_comm_broadcast(comm, &bcast.view, size - 1));
    CHECK(part_is(bcast, 0, n, size - 1, -1));
    record(out, bcast);
    // all_gather: block r from rank r.
    Buffer gather_send(dtype, n), gather_recv(dtype, n * ranks);
    fill_part(gather_send, 0, n, rank, -1);
    host::check(frugal_comm_all_gather(comm, &gather_send.view, &gather_recv.view));
    for (int r = 0; r < size; ++r) CHECK(part_is(gather_recv, static_cast<size_t>(r) * n, n, r, -1));
    record(out, gather_recv);
    // all_to_all: send block j goes to rank j.
    Buffer a2a_send(dtype, n * ranks), a2a_recv(dtype, n * ranks);
    for (int j = 0; j < size; ++j) fill_part(a2a_send, static_cast<size_t>(j) * n, n, rank, j);
    host::check(frugal_comm_all_to_all(comm, &a2a_send.view, &a2a_recv.view));
    for (int i = 0; i < size; ++i) CHECK(part_is(a2a_recv, static_cast<size_t>(i) * n, n, i, rank));
    record(out, a2a_recv);
  }
  host::check(frugal_comm_barrier(comm));
}

}  // namespace

void check_every_collective(frugal_comm* comm, size_t count) { run_all(comm, count, nullptr); }

void check_uneven_collectives(frugal_comm* comm) {
  const int rank = frugal_comm_rank(comm);
  const int size = frugal_comm_size(comm);
  const auto ranks = static_cast<size_t>(size);
  // What rank `from` sends rank `to`: 0, 1 or 2 elements (zeros included
  // whenever the group has 2+ ranks), plus a large part from rank 0 to the last.
  const auto part = [&](int from, int to) -> size_t {
    if (from == 0 && to == size - 1) return 5000;
    return static_cast<size_t>((from + 2 * to) % 3);
  };
  for (const bool gapped : {false, true}) {
    INFO((gapped ? "gapped" : "packed") << " displacements");
    std::vector<size_t> send_counts(ranks), send_displs(ranks), recv_counts(ranks), recv_displs(ranks);
    size_t send_total = 0;
    size_t recv_total = 0;
    for (int peer = 0; peer < size; ++peer) {
      const auto p = static_cast<size_t>(peer);
      send_counts[p] = part(rank, peer);
      recv_counts[p] = part(peer, rank);
      send_displs[p] = send_total;
      recv_displs[p] = recv_total;
      send_total += send_counts[p] + (gapped ? 3 : 0);
      recv_total += recv_counts[p] + (gapped ? 2 : 0);
    }
    Buffer send(FRUGAL_DTYPE_FLOAT32, send_total), recv(FRUGAL_DTYPE_FLOAT32, recv_total);
    std::fill(recv.bytes.begin(), recv.bytes.end(), std::byte{0xEE});
    for (int peer = 0; peer < size; ++peer) {
      const auto p = static_cast<size_t>(peer);
      fill_part(send, send_displs[p], send_counts[p], rank, peer);
    }
    host::check(frugal_comm_all_to_all_v(comm, &send.view, send_counts.data(), gapped ? send_displs.data() : nullptr,
                                         &recv.view, recv_counts.data(), gapped ? recv_displs.data() : nullptr));
    for (int peer = 0; peer < size; ++peer) {
      const auto p = static_cast<size_t>(peer);
      CHECK(part_is(recv, recv_displs[p], recv_counts[p], peer, rank));
    }
    if (gapped) {
      size_t untouched = 0;
      for (int peer = 0; peer < size; ++peer) {
        const size_t gap = (recv_displs[static_cast<size_t>(peer)] + recv_counts[static_cast<size_t>(peer)]) * 4;
        untouched += std::all_of(recv.bytes.begin() + static_cast<ptrdiff_t>(gap),
                                 recv.bytes.begin() + static_cast<ptrdiff_t>(gap + 8),
                                 [](std::byte b) { return b == std::byte{0xEE}; });
      }
      CHECK(untouched == ranks);
    }
    // all_gather_v: rank r contributes r % 3 elements (rank 0 nothing).
    std::vector<size_t> counts(ranks), displs(ranks);
    size_t total = 0;
    for (size_t r = 0; r < ranks; ++r) {
      counts[r] = r % 3;
      displs[r] = total;
      total += counts[r] + (gapped ? 1 : 0);
    }
    Buffer mine(FRUGAL_DTYPE_INT16, counts[static_cast<size_t>(rank)]), all(FRUGAL_DTYPE_INT16, total);
    fill_part(mine, 0, mine.count(), rank, -1);
    host::check(frugal_comm_all_gather_v(comm, &mine.view, &all.view, counts.data(), gapped ? displs.data() : nullptr));
    for (int r = 0; r < size; ++r)
      CHECK(part_is(all, displs[static_cast<size_t>(r)], counts[static_cast<size_t>(r)], r, -1));
  }
}

void check_same_results(frugal_comm* a, frugal_comm* b) {
  REQUIRE(frugal_comm_size(a) == 1);
  REQUIRE(frugal_comm_size(b) == 1);
  Outputs from_a;
  Outputs from_b;
  run_all(a, 33, &from_a);
  run_all(b, 33, &from_b);
  REQUIRE(from_a.size() == from_b.size());
  REQUIRE(!from_a.empty());
  for (size_t i = 0; i < from_a.size(); ++i) CHECK(from_a[i] == from_b[i]);
}

}  // namespace frugal::test
