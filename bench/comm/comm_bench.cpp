// comm_bench: all-reduce (f32 sum) and all-to-all through frugal's `mpi`
// communicator against the same collective called directly on MPI, in the
// same run, on the same buffers, 1 KiB to 256 MiB. Run it under mpirun:
//   mpirun -np 2 build/bin/comm_bench
// The direct calls are the blocking MPI_Allreduce / MPI_Alltoall a user
// would otherwise write: the strongest baseline, since frugal's own calls
// must be non-blocking underneath to honour their deadline.
//
// Timing: for each size, `--repeats` rounds, each timing a block of
// direct calls and a block of frugal calls, in turn first (so drift and
// warm caches favour neither); a block's time is the slowest rank's (MPI_MAX), the reported time
// the best round. Columns as nccl-tests: algbw = bytes / time, busbw =
// algbw x 2(n-1)/n for all-reduce and x (n-1)/n for all-to-all. The last
// column is the median over rounds of each round's ratio: on a shared or
// oversubscribed machine one lucky round can make the best-round ratio
// look better or worse than the typical call. From 1 MiB up the median
// ratio has a target, 0.95: the `target` column says met or MISSED.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "frugal/sdk/host.hpp"
#include "program_main.hpp"

namespace host = frugal::host;

namespace {

const frugal::args::Spec& command_line() {
  static const frugal::args::Spec spec{
      "comm_bench",
      "frugal's mpi communicator against direct MPI calls",
      "All-reduce (float32 sum) and all-to-all through frugal_comm (the comm_mpi plugin) against MPI_Allreduce and "
      "MPI_Alltoall on the same buffers in the same run, 1 KiB to 256 MiB per rank. Run under mpirun -np N. Prints, "
      "per size, the time, algorithm and bus bandwidth of each, their ratio (direct time / frugal time) and "
      "frugal's overhead per call in microseconds.",
      {},
      {frugal::args::value_flag("--max-bytes", "BYTES", "largest message per rank, 1024 to 2^28 (default 2^28)"),
       frugal::args::value_flag("--repeats", "N", "rounds per size, the best kept, 1 to 100 (default 5)"),
       frugal::args::switch_flag("--quick", "1 KiB to 64 KiB, 2 rounds: a smoke run")}};
  return spec;
}

struct Timing {
  double direct_s = 0;
  double frugal_s = 0;
  double median_ratio = 0;  // median over rounds of direct / frugal
};

// Seconds per call of `calls` calls of fn, as the slowest rank saw them.
template <class Fn>
double block_seconds(int calls, Fn fn) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) fn();
  double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / calls;
  double slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

// Calls per block: about 20 ms of data movement at ~5 GB/s, at least 2.
int calls_for(size_t bytes) {
  const double calls = 0.02 * 5e9 / static_cast<double>(std::max<size_t>(bytes, 1));
  return static_cast<int>(std::clamp(calls, 2.0, 2000.0));
}

frugal_tensor view_of(std::vector<float>& values, int64_t& extent) {
  extent = static_cast<int64_t>(values.size());
  frugal_tensor view{};
  view.struct_size = sizeof(view);
  view.data = values.data();
  view.dtype = FRUGAL_DTYPE_FLOAT32;
  view.ndim = 1;
  view.device = {FRUGAL_DEVICE_CPU, 0};
  view.shape = &extent;
  return view;
}

// From this size up frugal must keep the median ratio at or above
// kTargetRatio: below it, a few microseconds of per-call bookkeeping are
// reported as overhead instead (extra_us).
constexpr size_t kTargetFromBytes = size_t{1} << 20;
constexpr double kTargetRatio = 0.95;

const char* target_verdict(size_t bytes, double median_ratio) {
  if (bytes < kTargetFromBytes) return "-";
  return median_ratio >= kTargetRatio ? "met" : "MISSED";
}

// Checks that frugal's and MPI's results agree on this size (exact: the
// inputs are small integers, so every summation order gives the same sum).
bool same_results(const std::vector<float>& a, const std::vector<float>& b) { return a == b; }

struct Row {
  const char* op;
  size_t bytes;
  Timing t;
};

void print_row(const Row& row, int ranks) {
  const double factor = std::string(row.op) == "all_reduce" ? 2.0 * (ranks - 1) / ranks : double(ranks - 1) / ranks;
  const double bytes = static_cast<double>(row.bytes);
  auto algbw = [&](double s) { return bytes / s / 1e9; };
  std::printf("%-10s %11zu %10.2f %8.3f %8.3f %10.2f %8.3f %8.3f %7.3f %9.2f %9.3f %7s\n", row.op, row.bytes,
              row.t.direct_s * 1e6, algbw(row.t.direct_s), algbw(row.t.direct_s) * factor, row.t.frugal_s * 1e6,
              algbw(row.t.frugal_s), algbw(row.t.frugal_s) * factor, row.t.direct_s / row.t.frugal_s,
              (row.t.frugal_s - row.t.direct_s) * 1e6, row.t.median_ratio,
              target_verdict(row.bytes, row.t.median_ratio));
}

int bench(size_t max_bytes, int repeats, int max_calls) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int status = 0;
  {
    auto context = host::make_context();
    size_t loaded = 0;
    host::check(frugal_context_discover_plugins(context.get(), 0, &loaded));
    auto options = host::make_options();
    // The host's MPI, handed over as MPI_Comm_c2f's Fortran handle.
    host::check(frugal_options_set_int(options.get(), "fortran_handle", MPI_Comm_c2f(MPI_COMM_WORLD)));
    auto comm = host::make_comm(context.get(), "mpi", options.get());

    if (rank == 0) {
      std::printf("comm_bench: %d ranks, float32; times are per call (us), bandwidths GB/s; ratio = direct / frugal\n",
                  ranks);
      std::printf("%-10s %11s %10s %8s %8s %10s %8s %8s %7s %9s %9s %7s\n", "op", "bytes", "mpi_us", "mpi_alg",
                  "mpi_bus", "frugal_us", "alg", "bus", "ratio", "extra_us", "ratio_med", "target");
    }
    for (const char* op : {"all_reduce", "all_to_all"}) {
      const bool reduce = std::string(op) == "all_reduce";
      for (size_t bytes = 1024; bytes <= max_bytes; bytes *= 4) {
        // all_to_all: the message is divided among the ranks, so its size must
        // be a multiple of ranks x 4 bytes.
        const size_t count = bytes / sizeof(float) / static_cast<size_t>(ranks) * static_cast<size_t>(ranks);
        std::vector<float> send(count);
        for (size_t i = 0; i < count; ++i) send[i] = static_cast<float>((i + static_cast<size_t>(rank)) % 7);
        std::vector<float> direct_out(count);
        std::vector<float> frugal_out(count);
        int64_t send_extent = 0;
        int64_t recv_extent = 0;
        const frugal_tensor send_view = view_of(send, send_extent);
        const frugal_tensor recv_view = view_of(frugal_out, recv_extent);
        const int per_peer = static_cast<int>(count / static_cast<size_t>(ranks));
        auto direct = [&] {
          if (reduce)
            MPI_Allreduce(send.data(), direct_out.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
          else
            MPI_Alltoall(send.data(), per_peer, MPI_FLOAT, direct_out.data(), per_peer, MPI_FLOAT, MPI_COMM_WORLD);
        };
        auto through_frugal = [&] {
          host::check(reduce ? frugal_comm_all_reduce(comm.get(), &send_view, &recv_view, FRUGAL_REDUCE_SUM)
                             : frugal_comm_all_to_all(comm.get(), &send_view, &recv_view));
        };
        direct();
        through_frugal();
        int agree = same_results(direct_out, frugal_out) ? 1 : 0;
        int all_agree = 0;
        MPI_Allreduce(&agree, &all_agree, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all_agree == 0) {
          if (rank == 0) std::fprintf(stderr, "comm_bench: %s of %zu bytes: frugal and MPI disagree\n", op, bytes);
          status = 1;
        }
        const int calls = std::min(calls_for(bytes), max_calls);
        Row row{op, count * sizeof(float), {1e30, 1e30, 0}};
        std::vector<double> ratios;
        for (int r = 0; r < repeats; ++r) {
          const bool direct_first = r % 2 == 0;
          double direct_s = 0;
          double frugal_s = 0;
          if (direct_first) direct_s = block_seconds(calls, direct);
          frugal_s = block_seconds(calls, through_frugal);
          if (!direct_first) direct_s = block_seconds(calls, direct);
          row.t.direct_s = std::min(row.t.direct_s, direct_s);
          row.t.frugal_s = std::min(row.t.frugal_s, frugal_s);
          ratios.push_back(direct_s / frugal_s);
        }
        std::sort(ratios.begin(), ratios.end());
        row.t.median_ratio = ratios.size() % 2 == 1 ? ratios[ratios.size() / 2]
                                                    : 0.5 * (ratios[ratios.size() / 2 - 1] + ratios[ratios.size() / 2]);
        if (rank == 0) print_row(row, ranks);
      }
    }
  }
  MPI_Finalize();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  return frugal::args::program_main(argc, argv, command_line(), [&](const frugal::args::ParsedArgs& args) {
    const bool quick = args.has("--quick");
    const auto max_bytes = static_cast<size_t>(
        frugal::args::int_value(args, "--max-bytes", quick ? 65536 : int64_t{1} << 28, 1024, int64_t{1} << 28));
    const int repeats = static_cast<int>(frugal::args::int_value(args, "--repeats", quick ? 2 : 5, 1, 100));
    return bench(max_bytes, repeats, quick ? 20 : 2000);
  });
}
