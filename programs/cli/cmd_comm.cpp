// `frugal comm test`: run under `mpirun -np N`, checks every collective of
// a communicator across the ranks against values each rank computes on its
// own, then prints bandwidth per message size as nccl-tests does: the time
// per call (the slowest rank's), the algorithm bandwidth (bytes / time) and
// the bus bandwidth (algbw times the op's factor: 2(n-1)/n for all-reduce,
// (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for broadcast),
// which compares with the link's speed whatever the rank count.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ckpt_args.hpp"
#include "cli_errors.hpp"
#include "commands.hpp"
#include "frugal/sdk/host.hpp"
#include "json_text.hpp"

namespace frugal::cli {
namespace {

constexpr int64_t kCheckCount = 1003;  // elements per rank in the checks: odd, several pages of f64

// The small integers the checks move: exact in every dtype, bf16 included,
// whatever the reduction order.
int64_t value_of(int64_t rank, int64_t i) { return (rank + i) % 5; }
int64_t block_value(int64_t from, int64_t to, int64_t i) { return (from * 7 + to * 3 + i) % 11; }

// Encodes a small non-negative integer (< 2048) in `dtype`'s bytes.
void store(int32_t dtype, void* at, int64_t v) {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT32: {
      const auto f = static_cast<float>(v);
      std::memcpy(at, &f, 4);
      return;
    }
    case FRUGAL_DTYPE_FLOAT64: {
      const auto d = static_cast<double>(v);
      std::memcpy(at, &d, 8);
      return;
    }
    case FRUGAL_DTYPE_BFLOAT16: {  // the top half of the float32: exact for these integers
      const auto bits = static_cast<uint16_t>(std::bit_cast<uint32_t>(static_cast<float>(v)) >> 16);
      std::memcpy(at, &bits, 2);
      return;
    }
    case FRUGAL_DTYPE_FLOAT16: {
      uint16_t bits = 0;
      if (v > 0) {
        const int e = static_cast<int>(std::bit_width(static_cast<uint64_t>(v))) - 1;
        bits = static_cast<uint16_t>(((e + 15) << 10) | ((v - (int64_t{1} << e)) << (10 - e)));
      }
      std::memcpy(at, &bits, 2);
      return;
    }
    case FRUGAL_DTYPE_INT32: {
      const auto i = static_cast<int32_t>(v);
      std::memcpy(at, &i, 4);
      return;
    }
    case FRUGAL_DTYPE_INT64: std::memcpy(at, &v, 8); return;
    default: {
      const auto u = static_cast<uint8_t>(v);
      std::memcpy(at, &u, 1);
    }
  }
}

size_t width_of(int32_t dtype) { return frugal_dtype_bits(dtype) / 8u; }

// A compact 1-D buffer of `count` elements of `dtype`, with its tensor view.
struct Buffer {
  int32_t dtype;
  std::vector<uint8_t> bytes;
  int64_t extent;
  frugal_tensor view{};

  Buffer(int32_t type, int64_t count)
      : dtype(type), bytes(static_cast<size_t>(count) * width_of(type) + 1), extent(count) {
    view.struct_size = sizeof(view);
    view.data = bytes.data();
    view.dtype = dtype;
    view.ndim = 1;
    view.device = {FRUGAL_DEVICE_CPU, 0};
    view.shape = &extent;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void set(int64_t i, int64_t v) { store(dtype, bytes.data() + static_cast<size_t>(i) * width_of(dtype), v); }
  // Whether element i holds v (compared as encoded bytes: exact).
  [[nodiscard]] bool holds(int64_t i, int64_t v) const {
    uint8_t want[8] = {};
    store(dtype, want, v);
    return std::memcmp(bytes.data() + static_cast<size_t>(i) * width_of(dtype), want, width_of(dtype)) == 0;
  }
};

struct Check {
  std::string op;
  std::string dtype;
  bool passed = false;  // on every rank
  std::string detail;   // the first wrong element this rank saw
};

class Tester {
 public:
  explicit Tester(frugal_comm* comm) : comm_(comm), rank_(frugal_comm_rank(comm)), size_(frugal_comm_size(comm)) {}

  std::vector<Check> run_checks() {
    std::vector<Check> out;
    for (const int32_t dtype : {FRUGAL_DTYPE_FLOAT32, FRUGAL_DTYPE_FLOAT64, FRUGAL_DTYPE_FLOAT16, FRUGAL_DTYPE_BFLOAT16,
                                FRUGAL_DTYPE_INT32, FRUGAL_DTYPE_INT64})
      for (const int32_t op : {FRUGAL_REDUCE_SUM, FRUGAL_REDUCE_MAX, FRUGAL_REDUCE_MIN})
        out.push_back(all_reduce(dtype, op));
    for (const int32_t op : {FRUGAL_REDUCE_MAX, FRUGAL_REDUCE_MIN}) out.push_back(all_reduce(FRUGAL_DTYPE_UINT8, op));
    out.push_back(broadcast());
    out.push_back(all_gather());
    out.push_back(all_gather_v());
    out.push_back(reduce_scatter());
    out.push_back(all_to_all());
    out.push_back(all_to_all_v());
    Check barrier{"barrier", "-", true, ""};
    host::check(frugal_comm_barrier(comm_));
    out.push_back(barrier);
    return out;
  }

  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }

  // Seconds per call of `iters` calls, as the slowest rank saw them.
  template <class Fn>
  double seconds_per_call(int iters, Fn&& call) {
    host::check(frugal_comm_barrier(comm_));
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) call();
    double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters;
    return max_over_ranks(mine);
  }

  frugal_comm* comm() const { return comm_; }

 private:
  double max_over_ranks(double mine) {
    Buffer b(FRUGAL_DTYPE_FLOAT64, 1);
    std::memcpy(b.bytes.data(), &mine, 8);
    host::check(frugal_comm_all_reduce(comm_, &b.view, &b.view, FRUGAL_REDUCE_MAX));
    double out = 0;
    std::memcpy(&out, b.bytes.data(), 8);
    return out;
  }

  // Passed only if every rank saw the right values (one MIN over the ranks).
  Check finish(std::string op, int32_t dtype, const std::string& detail) {
    Buffer flag(FRUGAL_DTYPE_INT32, 1);
    flag.set(0, detail.empty() ? 1 : 0);
    host::check(frugal_comm_all_reduce(comm_, &flag.view, &flag.view, FRUGAL_REDUCE_MIN));
    return {std::move(op), dtype < 0 ? "-" : frugal_dtype_name(dtype), flag.holds(0, 1), detail};
  }

  static std::string wrong(const char* what, int64_t i, int64_t want) {
    return fmt::format("{} element {} is not {}", what, i, want);
  }

  Check all_reduce(int32_t dtype, int32_t op) {
    Buffer send(dtype, kCheckCount);
    Buffer recv(dtype, kCheckCount);
    for (int64_t i = 0; i < kCheckCount; ++i) send.set(i, value_of(rank_, i));
    host::check(frugal_comm_all_reduce(comm_, &send.view, &recv.view, op));
    std::string detail;
    for (int64_t i = 0; i < kCheckCount && detail.empty(); ++i) {
      int64_t want = op == FRUGAL_REDUCE_MIN ? std::numeric_limits<int64_t>::max() : 0;
      for (int64_t r = 0; r < size_; ++r) {
        const int64_t v = value_of(r, i);
        want = op == FRUGAL_REDUCE_SUM ? want + v : op == FRUGAL_REDUCE_MAX ? std::max(want, v) : std::min(want, v);
      }
      if (!recv.holds(i, want)) detail = wrong("recv", i, want);
    }
    const char* name = op == FRUGAL_REDUCE_SUM   ? "all_reduce sum"
                       : op == FRUGAL_REDUCE_MAX ? "all_reduce max"
                                                 : "all_reduce min";
    return finish(name, dtype, detail);
  }

  Check broadcast() {
    Buffer b(FRUGAL_DTYPE_FLOAT32, kCheckCount);
    for (int64_t i = 0; i < kCheckCount; ++i) b.set(i, value_of(rank_, i));
    const int root = size_ - 1;
    host::check(frugal_comm_broadcast(comm_, &b.view, root));
    std::string detail;
    for (int64_t i = 0; i < kCheckCount && detail.empty(); ++i)
      if (!b.holds(i, value_of(root, i))) detail = wrong("buffer", i, value_of(root, i));
    return finish("broadcast", FRUGAL_DTYPE_FLOAT32, detail);
  }

  Check all_gather() {
    Buffer send(FRUGAL_DTYPE_FLOAT32, kCheckCount);
    Buffer recv(FRUGAL_DTYPE_FLOAT32, kCheckCount * size_);
    for (int64_t i = 0; i < kCheckCount; ++i) send.set(i, value_of(rank_, i));
    host::check(frugal_comm_all_gather(comm_, &send.view, &recv.view));
    std::string detail;
    for (int64_t r = 0; r < size_ && detail.empty(); ++r)
      for (int64_t i = 0; i < kCheckCount && detail.empty(); ++i)
        if (!recv.holds(r * kCheckCount + i, value_of(r, i)))
          detail = wrong("recv", r * kCheckCount + i, value_of(r, i));
    return finish("all_gather", FRUGAL_DTYPE_FLOAT32, detail);
  }

  // Rank r contributes r % 3 + 1 elements (uneven).
  Check all_gather_v() {
    std::vector<size_t> counts(static_cast<size_t>(size_));
    int64_t total = 0;
    for (int r = 0; r < size_; ++r) total += static_cast<int64_t>(counts[static_cast<size_t>(r)] = r % 3 + 1u);
    Buffer send(FRUGAL_DTYPE_FLOAT32, rank_ % 3 + 1);
    Buffer recv(FRUGAL_DTYPE_FLOAT32, total);
    for (int64_t i = 0; i < send.extent; ++i) send.set(i, value_of(rank_, i));
    host::check(frugal_comm_all_gather_v(comm_, &send.view, &recv.view, counts.data(), nullptr));
    std::string detail;
    int64_t at = 0;
    for (int64_t r = 0; r < size_; ++r)
      for (int64_t i = 0; i < r % 3 + 1; ++i, ++at)
        if (detail.empty() && !recv.holds(at, value_of(r, i))) detail = wrong("recv", at, value_of(r, i));
    return finish("all_gather_v", FRUGAL_DTYPE_FLOAT32, detail);
  }

  Check reduce_scatter() {
    Buffer send(FRUGAL_DTYPE_FLOAT32, kCheckCount * size_);
    Buffer recv(FRUGAL_DTYPE_FLOAT32, kCheckCount);
    for (int64_t j = 0; j < send.extent; ++j) send.set(j, value_of(rank_, j));
    host::check(frugal_comm_reduce_scatter(comm_, &send.view, &recv.view, FRUGAL_REDUCE_SUM));
    std::string detail;
    for (int64_t i = 0; i < kCheckCount && detail.empty(); ++i) {
      int64_t want = 0;
      for (int64_t r = 0; r < size_; ++r) want += value_of(r, rank_ * kCheckCount + i);
      if (!recv.holds(i, want)) detail = wrong("recv", i, want);
    }
    return finish("reduce_scatter", FRUGAL_DTYPE_FLOAT32, detail);
  }

  Check all_to_all() {
    Buffer send(FRUGAL_DTYPE_FLOAT32, kCheckCount * size_);
    Buffer recv(FRUGAL_DTYPE_FLOAT32, kCheckCount * size_);
    for (int64_t p = 0; p < size_; ++p)
      for (int64_t i = 0; i < kCheckCount; ++i) send.set(p * kCheckCount + i, block_value(rank_, p, i));
    host::check(frugal_comm_all_to_all(comm_, &send.view, &recv.view));
    std::string detail;
    for (int64_t q = 0; q < size_ && detail.empty(); ++q)
      for (int64_t i = 0; i < kCheckCount && detail.empty(); ++i)
        if (!recv.holds(q * kCheckCount + i, block_value(q, rank_, i)))
          detail = wrong("recv", q * kCheckCount + i, block_value(q, rank_, i));
    return finish("all_to_all", FRUGAL_DTYPE_FLOAT32, detail);
  }

  // Rank r sends (r + p) % 3 elements to peer p: zeros and uneven counts.
  Check all_to_all_v() {
    auto count = [](int64_t from, int64_t to) { return static_cast<size_t>((from + to) % 3); };
    std::vector<size_t> send_counts(static_cast<size_t>(size_));
    std::vector<size_t> recv_counts(static_cast<size_t>(size_));
    int64_t sent = 0;
    int64_t received = 0;
    for (int p = 0; p < size_; ++p) {
      sent += static_cast<int64_t>(send_counts[static_cast<size_t>(p)] = count(rank_, p));
      received += static_cast<int64_t>(recv_counts[static_cast<size_t>(p)] = count(p, rank_));
    }
    Buffer send(FRUGAL_DTYPE_FLOAT32, sent);
    Buffer recv(FRUGAL_DTYPE_FLOAT32, received);
    int64_t at = 0;
    for (int64_t p = 0; p < size_; ++p)
      for (size_t i = 0; i < count(rank_, p); ++i) send.set(at++, block_value(rank_, p, static_cast<int64_t>(i)));
    host::check(frugal_comm_all_to_all_v(comm_, &send.view, send_counts.data(), nullptr, &recv.view, recv_counts.data(),
                                         nullptr));
    std::string detail;
    at = 0;
    for (int64_t q = 0; q < size_; ++q)
      for (size_t i = 0; i < count(q, rank_); ++i, ++at)
        if (detail.empty() && !recv.holds(at, block_value(q, rank_, static_cast<int64_t>(i))))
          detail = wrong("recv", at, block_value(q, rank_, static_cast<int64_t>(i)));
    return finish("all_to_all_v", FRUGAL_DTYPE_FLOAT32, detail);
  }

  frugal_comm* comm_;
  int rank_;
  int size_;
};

struct BandwidthRow {
  std::string op;
  uint64_t bytes;  // as nccl-tests: the buffer each rank ends with (all_gather: the gathered one)
  double seconds;
  double algbw;  // GB/s
  double busbw;  // GB/s
};

// One op's timing at `bytes` (float32 elements, a multiple of the rank count).
BandwidthRow time_op(Tester& t, const std::string& op, uint64_t bytes, int iters, int warmup) {
  const int n = t.size();
  const int64_t count = static_cast<int64_t>(bytes / 4 / static_cast<uint64_t>(n)) * n;  // divisible by n
  const int64_t part = count / n;
  Buffer big(FRUGAL_DTYPE_FLOAT32, count);
  Buffer other(FRUGAL_DTYPE_FLOAT32, count);
  Buffer piece(FRUGAL_DTYPE_FLOAT32, part);
  std::memset(big.bytes.data(), 0, big.bytes.size());
  double factor = 1.0;
  std::function<void()> call;
  if (op == "all_reduce") {
    factor = 2.0 * (n - 1) / n;
    call = [&] { host::check(frugal_comm_all_reduce(t.comm(), &big.view, &other.view, FRUGAL_REDUCE_SUM)); };
  } else if (op == "all_gather") {
    factor = double(n - 1) / n;
    call = [&] { host::check(frugal_comm_all_gather(t.comm(), &piece.view, &big.view)); };
  } else if (op == "reduce_scatter") {
    factor = double(n - 1) / n;
    call = [&] { host::check(frugal_comm_reduce_scatter(t.comm(), &big.view, &piece.view, FRUGAL_REDUCE_SUM)); };
  } else if (op == "all_to_all") {
    factor = double(n - 1) / n;
    call = [&] { host::check(frugal_comm_all_to_all(t.comm(), &big.view, &other.view)); };
  } else {
    call = [&] { host::check(frugal_comm_broadcast(t.comm(), &big.view, 0)); };
  }
  for (int i = 0; i < warmup; ++i) call();
  const double s = t.seconds_per_call(iters, call);
  const double moved = static_cast<double>(count) * 4.0;
  return {op, static_cast<uint64_t>(count) * 4u, s, moved / s / 1e9, moved / s / 1e9 * factor};
}

uint64_t bytes_flag(const ParsedArgs& parsed, const char* flag, uint64_t fallback) {
  const auto v = parsed.value(flag);
  return v ? static_cast<uint64_t>(parse_int_flag(flag, *v, 64, int64_t{1} << 32)) : fallback;
}

}  // namespace

const args::Spec& comm_test_spec() {
  static const args::Spec spec{
      "frugal comm test",
      "check every collective across the ranks, then print bandwidth per size (run under mpirun)",
      "Run under `mpirun -np N frugal comm test`: creates a communicator (--backend, default mpi), checks every "
      "collective and dtype against values each rank computes itself (all_reduce sum, max, min of float32, float64, "
      "float16, bfloat16, int32, int64 and max, min of uint8; broadcast, all_gather, all_gather_v, reduce_scatter, "
      "all_to_all, all_to_all_v with uneven and zero counts, barrier), then times all_reduce, all_gather, "
      "reduce_scatter, all_to_all and broadcast of float32 from --min-bytes to --max-bytes (x4 steps). Columns as "
      "nccl-tests: the time per call of the slowest rank, algbw = bytes / time and busbw = algbw x 2(n-1)/n "
      "(all_reduce), x (n-1)/n (all_gather, reduce_scatter, all_to_all), x 1 (broadcast), in GB/s. Rank 0 prints. "
      "Exit code 0 when every check passed on every rank, 1 otherwise.",
      {},
      {args::value_flag("--backend", "NAME", "the comm strategy: mpi (default), local, or plugin/name"),
       args::value_flag("--min-bytes", "BYTES", "smallest message, 64 to 2^32 (default 1024)"),
       args::value_flag("--max-bytes", "BYTES", "largest message, 64 to 2^32 (default 64 MiB)"),
       args::value_flag("--iters", "N", "timed calls per size and op, 1 to 100000 (default 20)"),
       args::value_flag("--timeout-ms", "MS", "deadline of each collective (default 300000)"),
       args::switch_flag("--no-bandwidth", "the checks only"), args::switch_flag("--json", "machine-readable output")}};
  return spec;
}

int cmd_comm(const std::vector<std::string>& args) {
  const bool json = has_word(args, "--json");
  if (wants_help(args)) return print_help(comm_test_spec());
  if (args.empty() || args[0] != "test")
    return report_error("comm", "USAGE",
                        args.empty() ? std::string("needs a subcommand: test")
                                     : fmt::format("unknown subcommand '{}' (accepted: test)", args[0]),
                        kExitUsage, json);
  ParsedArgs parsed;
  uint64_t min_bytes = 1024;
  uint64_t max_bytes = uint64_t{64} << 20;
  int iters = 20;
  int64_t timeout_ms = FRUGAL_COMM_DEFAULT_TIMEOUT_MS;
  try {
    parsed = parse_args(std::vector<std::string>(args.begin() + 1, args.end()), comm_test_spec());
    if (!parsed.positional.empty()) throw UsageError(fmt::format("unexpected argument '{}'", parsed.positional[0]));
    min_bytes = bytes_flag(parsed, "--min-bytes", min_bytes);
    max_bytes = bytes_flag(parsed, "--max-bytes", max_bytes);
    if (min_bytes > max_bytes)
      throw UsageError(fmt::format("--min-bytes ({}) is more than --max-bytes ({})", min_bytes, max_bytes));
    if (auto v = parsed.value("--iters")) iters = static_cast<int>(parse_int_flag("--iters", *v, 1, 100000));
    if (auto v = parsed.value("--timeout-ms")) timeout_ms = parse_int_flag("--timeout-ms", *v, 1, INT64_MAX);
  } catch (const UsageError& e) {
    return report_error("comm test", "USAGE", e.what(), kExitUsage, json);
  }
  return run_reporting_errors("comm test", json, [&] {
    auto context = host::make_context();
    host::check(frugal_context_discover_plugins(context.get(), 0, nullptr));
    const std::string backend = parsed.value("--backend").value_or("mpi");
    auto comm = host::make_comm(context.get(), backend.c_str(), nullptr);
    host::check(frugal_comm_set_timeout(comm.get(), timeout_ms));
    Tester tester(comm.get());
    const auto checks = tester.run_checks();
    const bool passed = std::all_of(checks.begin(), checks.end(), [](const Check& c) { return c.passed; });
    for (const auto& c : checks)  // every rank names what it saw wrong
      if (!c.detail.empty())
        std::fprintf(stderr, "frugal comm test: rank %d: %s %s: %s\n", tester.rank(), c.op.c_str(), c.dtype.c_str(),
                     c.detail.c_str());
    std::vector<BandwidthRow> rows;
    if (passed && !parsed.has("--no-bandwidth"))
      for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast"})
        for (uint64_t bytes = min_bytes; bytes <= max_bytes; bytes *= 4)
          rows.push_back(time_op(tester, op, bytes, iters, 2));
    if (tester.rank() != 0) return passed ? kExitOk : kExitProblem;
    if (json) {
      json::Json out = {{"backend", backend}, {"ranks", tester.size()}, {"passed", passed}};
      out["checks"] = json::Json::array();
      for (const auto& c : checks) out["checks"].push_back({{"op", c.op}, {"dtype", c.dtype}, {"passed", c.passed}});
      out["bandwidth"] = json::Json::array();
      for (const auto& r : rows)
        out["bandwidth"].push_back({{"op", r.op},
                                    {"bytes", r.bytes},
                                    {"time_us", r.seconds * 1e6},
                                    {"algbw_gbps", r.algbw},
                                    {"busbw_gbps", r.busbw}});
      fmt::print("{}\n", json::json_text(out, -1));
    } else {
      const auto failed = std::count_if(checks.begin(), checks.end(), [](const Check& c) { return !c.passed; });
      fmt::print("frugal comm test: backend {}, {} rank(s)\n", backend, tester.size());
      fmt::print("checks: {} of {} passed\n", checks.size() - static_cast<size_t>(failed), checks.size());
      for (const auto& c : checks)
        if (!c.passed) fmt::print("  FAILED {} {}\n", c.op, c.dtype);
      if (!rows.empty()) {
        fmt::print("{:<15} {:>12} {:>10} {:>12} {:>12}\n", "op", "bytes", "time_us", "algbw_GB/s", "busbw_GB/s");
        for (const auto& r : rows)
          fmt::print("{:<15} {:>12} {:>10.2f} {:>12.3f} {:>12.3f}\n", r.op, r.bytes, r.seconds * 1e6, r.algbw, r.busbw);
      }
    }
    return passed ? kExitOk : kExitProblem;
  });
}

}  // namespace frugal::cli
