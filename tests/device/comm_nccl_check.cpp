// GPU check of the `nccl` comm (plugins/comm_nccl) through the public C
// API, at one rank (NCCL refuses two ranks on one GPU): each collective on
// device tensors against the CPU result, computed on the host by the
// `local` comm (a group of one in host memory) from the same bytes, and
// every byte of the outputs compared, the untouched gaps of the "v" ops
// included. Needs a CUDA device; without one it prints "SKIP: no CUDA
// device" and exits 0 (ctest shows it as skipped).
//
//   all_reduce      first, as issue 21 asks: an fp32 sum of a device tensor
//                   (1M elements; 64K with --quick) against the CPU result;
//   every op        all_reduce (sum, max, min; in place too) and
//                   reduce_scatter over f32 f64 f16 bf16 i32 i64 (u8: max,
//                   min); broadcast, all_gather, all_gather_v, all_to_all,
//                   all_to_all_v over all 13 dtypes; barrier; zero elements;
//   joining         the comm made through a unique_id (ncclGetUniqueId,
//                   hex), through a bootstrap comm (`local` carries the id);
//                   split (a color: a working group of one; none: no group);
//                   a caller's stream (frugal_comm_set_stream);
//   deadline        a comm of 2 whose rank 1 never comes: create fails with
//                   DEADLINE_EXCEEDED naming rank 0 within its deadline, the
//                   half-made communicator is aborted and the device works
//                   on (a watchdog fails the check rather than hang).
//
// One line per group, PASS or FAIL; exit status 1 when any group fails.
// Inputs are seeded from the clock and the seed is printed; --seed N
// repeats a run.
// usage: comm_nccl_check [--quick] [--seed N]
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "algorithms/unique_id.hpp"
#include "device_check.hpp"
#include "formats/half.hpp"
#include "frugal/frugal.h"

namespace {

using namespace frugal::device_check;
namespace fq = frugal::quant;

constexpr int32_t kAllDtypes[] = {
    FRUGAL_DTYPE_FLOAT32,       FRUGAL_DTYPE_FLOAT16,     FRUGAL_DTYPE_BFLOAT16,       FRUGAL_DTYPE_FLOAT64,
    FRUGAL_DTYPE_FLOAT8_E4M3FN, FRUGAL_DTYPE_FLOAT8_E5M2, FRUGAL_DTYPE_FLOAT8_E8M0FNU, FRUGAL_DTYPE_INT8,
    FRUGAL_DTYPE_UINT8,         FRUGAL_DTYPE_INT16,       FRUGAL_DTYPE_INT32,          FRUGAL_DTYPE_INT64,
    FRUGAL_DTYPE_BOOL};
constexpr int32_t kReduceDtypes[] = {FRUGAL_DTYPE_FLOAT32,  FRUGAL_DTYPE_FLOAT64, FRUGAL_DTYPE_FLOAT16,
                                     FRUGAL_DTYPE_BFLOAT16, FRUGAL_DTYPE_INT32,   FRUGAL_DTYPE_INT64,
                                     FRUGAL_DTYPE_UINT8};
constexpr int32_t kReduceOps[] = {FRUGAL_REDUCE_SUM, FRUGAL_REDUCE_MAX, FRUGAL_REDUCE_MIN};

const char* op_label(int32_t op) { return op == FRUGAL_REDUCE_SUM ? "sum" : op == FRUGAL_REDUCE_MAX ? "max" : "min"; }

// The comms one case runs on: the same call through both, the host side
// giving the CPU result.
struct Pair {
  frugal_comm* nccl = nullptr;
  frugal_comm* local = nullptr;
  int device = 0;
};

using CommPtr = std::unique_ptr<frugal_comm, void (*)(frugal_comm*)>;
using OptionsPtr = std::unique_ptr<frugal_options, void (*)(frugal_options*)>;

OptionsPtr new_options() {
  frugal_options* o = nullptr;
  expect_ok(frugal_options_create(&o), "frugal_options_create");
  return {o, frugal_options_destroy};
}

CommPtr make_comm(frugal_context* ctx, const char* name, const frugal_options* options) {
  frugal_comm* c = nullptr;
  expect_ok(frugal_comm_create(ctx, name, options, &c), std::string("frugal_comm_create '") + name + "'");
  return {c, frugal_comm_destroy};
}

// A fresh NCCL id as option unique_id takes it.
std::string new_unique_id() {
  ncclUniqueId id{};
  const ncclResult_t r = ncclGetUniqueId(&id);
  if (r != ncclSuccess) throw Failure(std::string("ncclGetUniqueId: ") + ncclGetErrorString(r));
  frugal::comm_nccl::UniqueIdBytes bytes{};
  std::memcpy(bytes.data(), &id, bytes.size());
  return frugal::comm_nccl::encode_unique_id(bytes);
}

CommPtr nccl_by_id(frugal_context* ctx, int device, int64_t size = 1, int64_t timeout_ms = 60000) {
  auto o = new_options();
  expect_ok(frugal_options_set_string(o.get(), "unique_id", new_unique_id().c_str()), "unique_id");
  expect_ok(frugal_options_set_int(o.get(), "rank", 0), "rank");
  expect_ok(frugal_options_set_int(o.get(), "size", size), "size");
  expect_ok(frugal_options_set_int(o.get(), "device", device), "device");
  expect_ok(frugal_options_set_int(o.get(), "join_timeout_ms", timeout_ms), "join_timeout_ms");
  return make_comm(ctx, "nccl", o.get());
}

// A compact 1-D tensor view. Not movable: t points at n.
struct Vec {
  frugal_tensor t{};
  int64_t n = 0;
  Vec() = default;
  Vec(const Vec&) = delete;
  Vec& operator=(const Vec&) = delete;
  frugal_tensor* set(void* data, int32_t dtype, std::size_t count, frugal_device device) {
    t = frugal_tensor{};
    t.struct_size = sizeof(t);
    t.data = data;
    t.dtype = dtype;
    t.ndim = 1;
    t.device = device;
    n = static_cast<int64_t>(count);
    t.shape = &n;
    return &t;
  }
};

// `count` elements of `dtype`: finite, non-zero floats of either sign (a
// reduction over one rank must give them back bit for bit), any integer,
// 0 or 1 for bool, any byte for the fp8 formats (only moved).
std::vector<std::uint8_t> elements(int32_t dtype, std::size_t count, Rng& rng) {
  const std::size_t width = dtype_bytes(dtype);
  std::vector<std::uint8_t> out(count * width);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t h = rng.next();
    const double magnitude = 0.5 + 1.5 * unit(h);
    const double v = (h & 1) != 0 ? -magnitude : magnitude;
    std::uint8_t* at = out.data() + i * width;
    switch (dtype) {
      case FRUGAL_DTYPE_FLOAT32: {
        const auto f = static_cast<float>(v);
        std::memcpy(at, &f, 4);
        break;
      }
      case FRUGAL_DTYPE_FLOAT64: std::memcpy(at, &v, 8); break;
      case FRUGAL_DTYPE_FLOAT16: {
        const std::uint16_t b = fq::fp32_to_fp16(static_cast<float>(v));
        std::memcpy(at, &b, 2);
        break;
      }
      case FRUGAL_DTYPE_BFLOAT16: {
        const std::uint16_t b = fq::fp32_to_bf16(static_cast<float>(v));
        std::memcpy(at, &b, 2);
        break;
      }
      case FRUGAL_DTYPE_BOOL: at[0] = static_cast<std::uint8_t>(h >> 63); break;
      default: std::memcpy(at, &h, width); break;
    }
  }
  return out;
}

// One collective through both comms: the same input bytes in host memory
// (local) and device memory (nccl); every output byte must agree, inputs
// must be left as they were. `call` makes the collective from the views.
struct Buffers {
  Twin send;
  Twin recv;
  Vec send_view[2];
  Vec recv_view[2];
  Buffers(std::vector<std::uint8_t> send_bytes, std::size_t recv_bytes)
      : send(std::move(send_bytes)), recv(recv_bytes, 0xA5) {}
};

using Call = std::function<frugal_error*(frugal_comm*, const frugal_tensor* send, const frugal_tensor* recv)>;

std::string run_case(const Pair& comms, int32_t dtype, std::vector<std::uint8_t> input, std::size_t recv_count,
                     bool in_place, const Call& call) {
  const std::size_t width = dtype_bytes(dtype);
  const std::size_t send_count = input.size() / width;
  Buffers b(in_place ? std::vector<std::uint8_t>{} : std::move(input), recv_count * width);
  if (in_place) b.recv.set(input);
  for (const bool gpu : {false, true}) {
    const frugal_device device =
        gpu ? frugal_device{FRUGAL_DEVICE_CUDA, comms.device} : frugal_device{FRUGAL_DEVICE_CPU, 0};
    const frugal_tensor* recv = b.recv_view[gpu].set(b.recv.side(gpu), dtype, recv_count, device);
    const frugal_tensor* send = in_place ? recv : b.send_view[gpu].set(b.send.side(gpu), dtype, send_count, device);
    const Outcome o = outcome(call(gpu ? comms.nccl : comms.local, send, recv));
    if (o.code != 0) return std::string(gpu ? "nccl" : "local (the CPU result)") + ": " + o.message;
  }
  std::string diff = compare(b.recv, "recv");
  if (diff.empty() && !in_place) diff = compare(b.send, "send (must be unchanged)");
  return diff;
}

// Counts one case into `g`; `what` labels a failure.
void tally(Group& g, const std::string& what, const std::string& failure) {
  ++g.cases;
  if (failure.empty()) return;
  if (g.failed++ == 0) g.first = what + ": " + failure;
}

// Runs `body` (which tallies its own cases) and turns a thrown Failure into a failed case.
bool group(const std::string& name, const std::function<void(Group&)>& body) {
  Group g;
  try {
    body(g);
  } catch (const std::exception& e) {
    tally(g, "setup", e.what());
  }
  return report(name, g);
}

// ---------------------------------------------------------------------------
// The groups
// ---------------------------------------------------------------------------

bool check_first_all_reduce(const Pair& c, Rng& rng, bool quick) {
  return group("all_reduce f32 sum of a device tensor == CPU result", [&](Group& g) {
    for (const std::size_t n : {std::size_t{1}, std::size_t{quick ? 65536u : 1u << 20}}) {
      tally(g, "n=" + std::to_string(n),
            run_case(c, FRUGAL_DTYPE_FLOAT32, elements(FRUGAL_DTYPE_FLOAT32, n, rng), n, false,
                     [](frugal_comm* comm, const frugal_tensor* s, const frugal_tensor* r) {
                       return frugal_comm_all_reduce(comm, s, r, FRUGAL_REDUCE_SUM);
                     }));
    }
  });
}

bool check_reductions(const Pair& c, Rng& rng, const std::vector<std::size_t>& sizes) {
  bool ok = true;
  for (const bool scatter : {false, true}) {
    ok = group(scatter ? "reduce_scatter every dtype x op" : "all_reduce every dtype x op, in place too",
               [&](Group& g) {
                 for (const int32_t dtype : kReduceDtypes) {
                   for (const int32_t op : kReduceOps) {
                     if (dtype == FRUGAL_DTYPE_UINT8 && op == FRUGAL_REDUCE_SUM) continue;  // the core refuses it
                     for (const std::size_t n : sizes) {
                       for (const bool in_place : {false, true}) {
                         if (scatter && in_place) continue;
                         const std::string what = std::string(dtype_label(dtype)) + " " + op_label(op) +
                                                  " n=" + std::to_string(n) + (in_place ? " in place" : "");
                         tally(g, what,
                               run_case(c, dtype, elements(dtype, n, rng), n, in_place,
                                        [&](frugal_comm* comm, const frugal_tensor* s, const frugal_tensor* r) {
                                          return scatter ? frugal_comm_reduce_scatter(comm, s, r, op)
                                                         : frugal_comm_all_reduce(comm, s, r, op);
                                        }));
                       }
                     }
                   }
                 }
               }) &&
         ok;
  }
  return ok;
}

bool check_moves(const Pair& c, Rng& rng, const std::vector<std::size_t>& sizes) {
  struct Move {
    const char* name;
    std::size_t extra_send;  // elements around the part (the v ops' gaps)
    std::size_t extra_recv;
    Call call;
  };
  const std::vector<Move> moves = {
      {"broadcast", 0, 0,
       [](frugal_comm* comm, const frugal_tensor*, const frugal_tensor* r) {
         return frugal_comm_broadcast(comm, r, 0);
       }},
      {"all_gather", 0, 0,
       [](frugal_comm* comm, const frugal_tensor* s, const frugal_tensor* r) {
         return frugal_comm_all_gather(comm, s, r);
       }},
      {"all_gather_v", 0, 9,
       [](frugal_comm* comm, const frugal_tensor* s, const frugal_tensor* r) {
         const std::size_t counts[] = {static_cast<std::size_t>(s->shape[0])};
         const std::size_t displs[] = {4};  // a gap before and after the part
         return frugal_comm_all_gather_v(comm, s, r, counts, displs);
       }},
      {"all_to_all", 0, 0,
       [](frugal_comm* comm, const frugal_tensor* s, const frugal_tensor* r) {
         return frugal_comm_all_to_all(comm, s, r);
       }},
      {"all_to_all_v", 5, 9,
       [](frugal_comm* comm, const frugal_tensor* s, const frugal_tensor* r) {
         const std::size_t counts[] = {static_cast<std::size_t>(s->shape[0]) - 5};
         const std::size_t send_displs[] = {2};
         const std::size_t recv_displs[] = {6};
         return frugal_comm_all_to_all_v(comm, s, counts, send_displs, r, counts, recv_displs);
       }},
  };
  bool ok = true;
  for (const Move& m : moves) {
    ok = group(std::string(m.name) + " every dtype",
               [&](Group& g) {
                 for (const int32_t dtype : kAllDtypes) {
                   for (const std::size_t n : sizes) {
                     const bool broadcast = std::strcmp(m.name, "broadcast") == 0;
                     // broadcast: one buffer, in place (its input is recv's content).
                     tally(g, std::string(dtype_label(dtype)) + " n=" + std::to_string(n),
                           run_case(c, dtype, elements(dtype, n + m.extra_send, rng), n + m.extra_recv, broadcast,
                                    m.call));
                   }
                 }
               }) &&
         ok;
  }
  return ok;
}

bool check_barrier_and_empty(const Pair& c, Rng& rng) {
  return group("barrier, zero-element calls", [&](Group& g) {
    for (int i = 0; i < 3; ++i) {
      const Outcome o = outcome(frugal_comm_barrier(c.nccl));
      tally(g, "barrier " + std::to_string(i), o.message);
    }
    tally(g, "all_reduce of 0 elements",
          run_case(c, FRUGAL_DTYPE_FLOAT32, {}, 0, false,
                   [](frugal_comm* comm, const frugal_tensor* s, const frugal_tensor* r) {
                     return frugal_comm_all_reduce(comm, s, r, FRUGAL_REDUCE_SUM);
                   }));
    tally(g, "all_to_all_v of 0 elements",
          run_case(c, FRUGAL_DTYPE_INT32, elements(FRUGAL_DTYPE_INT32, 3, rng), 4, false,
                   [](frugal_comm* comm, const frugal_tensor* s, const frugal_tensor* r) {
                     const std::size_t zero[] = {0};
                     return frugal_comm_all_to_all_v(comm, s, zero, nullptr, r, zero, nullptr);
                   }));
  });
}

bool check_joining(const Session& s, Rng& rng) {
  return group("bootstrap comm, split, caller's stream", [&](Group& g) {
    CommPtr local = make_comm(s.ctx, "local", nullptr);
    auto o = new_options();
    expect_ok(frugal_options_set_comm(o.get(), "bootstrap", local.get()), "bootstrap");
    CommPtr booted = make_comm(s.ctx, "nccl", o.get());
    tally(g, "bootstrap: rank 0 of 1 on CUDA",
          frugal_comm_rank(booted.get()) == 0 && frugal_comm_size(booted.get()) == 1 &&
                  frugal_comm_device_type(booted.get()) == FRUGAL_DEVICE_CUDA
              ? ""
              : "rank, size or device type wrong");
    const Pair through_boot{booted.get(), local.get(), s.device};
    const auto sum = [](frugal_comm* comm, const frugal_tensor* a, const frugal_tensor* b) {
      return frugal_comm_all_reduce(comm, a, b, FRUGAL_REDUCE_SUM);
    };
    tally(g, "bootstrap: all_reduce",
          run_case(through_boot, FRUGAL_DTYPE_BFLOAT16, elements(FRUGAL_DTYPE_BFLOAT16, 4099, rng), 4099, false, sum));

    frugal_comm* sub = nullptr;
    Outcome split = outcome(frugal_comm_split(booted.get(), 5, 0, &sub));
    CommPtr sub_owned(sub, frugal_comm_destroy);
    tally(g, "split color 5", split.code != 0 ? split.message : sub == nullptr ? "no sub-group" : "");
    if (sub != nullptr) {
      const Pair through_sub{sub, local.get(), s.device};
      tally(g, "split: all_gather",
            run_case(through_sub, FRUGAL_DTYPE_INT64, elements(FRUGAL_DTYPE_INT64, 333, rng), 333, false,
                     [](frugal_comm* comm, const frugal_tensor* a, const frugal_tensor* b) {
                       return frugal_comm_all_gather(comm, a, b);
                     }));
    }
    frugal_comm* none = booted.get();  // must be overwritten with NULL
    split = outcome(frugal_comm_split(booted.get(), FRUGAL_COMM_COLOR_NONE, 0, &none));
    tally(g, "split color none", split.code != 0 ? split.message : none != nullptr ? "a sub-group" : "");

    expect_ok(frugal_comm_set_stream(booted.get(), s.stream), "frugal_comm_set_stream");
    tally(g, "caller's stream: all_reduce",
          run_case(through_boot, FRUGAL_DTYPE_FLOAT64, elements(FRUGAL_DTYPE_FLOAT64, 70000, rng), 70000, false, sum));
    tally(g, "caller's stream: barrier", outcome(frugal_comm_barrier(booted.get())).message);
  });
}

// A watchdog: fails the whole check (exit 1) if `seconds` pass before disarm().
class Watchdog {
 public:
  Watchdog(const char* what, int seconds)
      : thread_([this, what, seconds] {
          std::unique_lock lock(mutex_);
          if (!cv_.wait_for(lock, std::chrono::seconds(seconds), [this] { return disarmed_; })) {
            std::printf("FAIL  %s: still waiting after %d s: a hang\n", what, seconds);
            std::fflush(stdout);
            std::_Exit(1);
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      disarmed_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool disarmed_ = false;
  std::thread thread_;
};

bool check_deadline(const Session& s, Rng& rng) {
  return group("create deadline: rank 1 of 2 never joins", [&](Group& g) {
    constexpr int64_t kTimeoutMs = 3000;
    const Watchdog watchdog("create deadline", 120);
    const auto started = std::chrono::steady_clock::now();
    auto o = new_options();
    expect_ok(frugal_options_set_string(o.get(), "unique_id", new_unique_id().c_str()), "unique_id");
    expect_ok(frugal_options_set_int(o.get(), "rank", 0), "rank");
    expect_ok(frugal_options_set_int(o.get(), "size", 2), "size");
    expect_ok(frugal_options_set_int(o.get(), "join_timeout_ms", kTimeoutMs), "join_timeout_ms");
    frugal_comm* made = nullptr;
    const Outcome r = outcome(frugal_comm_create(s.ctx, "nccl", o.get(), &made));
    if (made != nullptr) frugal_comm_destroy(made);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::string failure;
    if (r.code != FRUGAL_ERR_DEADLINE_EXCEEDED)
      failure = "code " + std::to_string(r.code) + " (expected DEADLINE_EXCEEDED): " + r.message;
    else if (r.message.find("create on rank 0 of 2") == std::string::npos ||
             r.message.find("did not finish within 3000 ms") == std::string::npos)
      failure = "the message does not name the rank and the deadline: " + r.message;
    else if (seconds < 2.9 || seconds > 30.0)
      failure = "returned after " + std::to_string(seconds) + " s for a 3 s deadline";
    tally(g, "create", failure);
    std::printf("      create deadline: %.2f s: %s\n", seconds, r.message.c_str());
    // The device works on: a new comm, an all-reduce.
    CommPtr fresh = nccl_by_id(s.ctx, s.device);
    CommPtr local = make_comm(s.ctx, "local", nullptr);
    tally(
        g, "a new comm afterwards",
        run_case(Pair{fresh.get(), local.get(), s.device}, FRUGAL_DTYPE_INT32, elements(FRUGAL_DTYPE_INT32, 1000, rng),
                 1000, false, [](frugal_comm* comm, const frugal_tensor* a, const frugal_tensor* b) {
                   return frugal_comm_all_reduce(comm, a, b, FRUGAL_REDUCE_MAX);
                 }));
  });
}

}  // namespace

int main(int argc, char** argv) {
  return run_check("comm_nccl_check", argc, argv, [](const Session& s) {
    Rng rng(s.seed);
    bool ok = true;
    CommPtr nccl(nullptr, frugal_comm_destroy);
    CommPtr local(nullptr, frugal_comm_destroy);
    ok = group("create through unique_id (size 1)",
               [&](Group& g) {
                 nccl = nccl_by_id(s.ctx, s.device);
                 local = make_comm(s.ctx, "local", nullptr);
                 tally(g, "rank 0 of 1 on CUDA",
                       frugal_comm_rank(nccl.get()) == 0 && frugal_comm_size(nccl.get()) == 1 &&
                               frugal_comm_device_type(nccl.get()) == FRUGAL_DEVICE_CUDA
                           ? ""
                           : "rank, size or device type wrong");
               }) &&
         ok;
    if (!nccl || !local) return false;
    const Pair pair{nccl.get(), local.get(), s.device};
    const std::vector<std::size_t> sizes =
        s.quick ? std::vector<std::size_t>{1, 1000} : std::vector<std::size_t>{1, 1000, 65537};
    ok = check_first_all_reduce(pair, rng, s.quick) && ok;
    ok = check_reductions(pair, rng, sizes) && ok;
    ok = check_moves(pair, rng, sizes) && ok;
    ok = check_barrier_and_empty(pair, rng) && ok;
    ok = check_joining(s, rng) && ok;
    nccl.reset();
    ok = check_deadline(s, rng) && ok;
    return ok;
  });
}
