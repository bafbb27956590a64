// Communicators (comm.h, comm_vtable.h). The kit is one process, so it
// checks a comm as the group it says it is only when that group is one
// rank: every collective then has a meaning known without peers (a
// reduction is the identity, a gather or an all-to-all a copy, the "v" ops
// move one part and leave the rest of recv alone), checked on host tensors
// through libfrugal (core-*) and on the vtable directly (comm-*). Started
// under mpirun (size > 1), or for a comm of CUDA memory, the value rules
// are skipped with the reason; info, split, the NULL and invalid-argument
// rules and the struct sizes are checked at any size.
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "frugal/comm.h"
#include "frugal/comm_vtable.h"
#include "frugal/sdk/comm_ops.hpp"
#include "host_tensors.hpp"
#include "strategy_checks.hpp"

namespace frugal::conformance {

namespace {

constexpr size_t kCount = 37;          // elements per block: odd, so no power-of-two shortcut passes by luck
constexpr int64_t kTimeoutMs = 60000;  // a call's deadline (comm_vtable.h: > 0); one rank never waits on it

constexpr int32_t kEveryDtype[] = {
    FRUGAL_DTYPE_FLOAT32,       FRUGAL_DTYPE_FLOAT16,     FRUGAL_DTYPE_BFLOAT16,       FRUGAL_DTYPE_FLOAT64,
    FRUGAL_DTYPE_FLOAT8_E4M3FN, FRUGAL_DTYPE_FLOAT8_E5M2, FRUGAL_DTYPE_FLOAT8_E8M0FNU, FRUGAL_DTYPE_INT8,
    FRUGAL_DTYPE_UINT8,         FRUGAL_DTYPE_INT16,       FRUGAL_DTYPE_INT32,          FRUGAL_DTYPE_INT64,
    FRUGAL_DTYPE_BOOL};
// comm.h: SUM, MAX and MIN take these; MAX and MIN also UINT8.
constexpr int32_t kReducible[] = {FRUGAL_DTYPE_FLOAT32,  FRUGAL_DTYPE_FLOAT64, FRUGAL_DTYPE_FLOAT16,
                                  FRUGAL_DTYPE_BFLOAT16, FRUGAL_DTYPE_INT32,   FRUGAL_DTYPE_INT64};
constexpr int32_t kReduceOps[] = {FRUGAL_REDUCE_SUM, FRUGAL_REDUCE_MAX, FRUGAL_REDUCE_MIN};
constexpr int32_t kOps[] = {FRUGAL_COMM_ALL_REDUCE,   FRUGAL_COMM_BROADCAST,      FRUGAL_COMM_ALL_GATHER,
                            FRUGAL_COMM_ALL_GATHER_V, FRUGAL_COMM_REDUCE_SCATTER, FRUGAL_COMM_ALL_TO_ALL,
                            FRUGAL_COMM_ALL_TO_ALL_V, FRUGAL_COMM_BARRIER};

std::string dtype_text(int32_t dtype) { return frugal_dtype_name(dtype); }

const char* reduce_text(int32_t reduce_op) {
  return reduce_op == FRUGAL_REDUCE_SUM ? "sum" : reduce_op == FRUGAL_REDUCE_MAX ? "max" : "min";
}

const char* device_text(int32_t type) {
  return type == FRUGAL_DEVICE_CPU ? "CPU" : type == FRUGAL_DEVICE_CUDA ? "CUDA" : "an unknown device type";
}

// Valid values of `dtype`, different per element and seed: finite floats
// (a NaN's reduction is unspecified), bools 0 or 1, any integer.
void fill(HostTensor& t, int32_t dtype, uint32_t seed) {
  auto* bytes = t.data<unsigned char>();
  const size_t width = dtype_size(dtype);
  for (size_t i = 0; i < static_cast<size_t>(t.elements()); ++i) {
    const uint32_t v = (static_cast<uint32_t>(i) + 1) * 2654435761u + seed * 40503u;
    const uint32_t r = v >> 9;
    const bool negative = (r & 1u) != 0;
    unsigned char* at = bytes + i * width;
    switch (dtype) {
      case FRUGAL_DTYPE_FLOAT32: {
        const float f = (negative ? -1.0f : 1.0f) * static_cast<float>(1 + (r >> 1) % 1000) / 8.0f;
        std::memcpy(at, &f, sizeof f);
        break;
      }
      case FRUGAL_DTYPE_FLOAT64: {
        const double d = (negative ? -1.0 : 1.0) * static_cast<double>(1 + (r >> 1) % 100000) / 64.0;
        std::memcpy(at, &d, sizeof d);
        break;
      }
      case FRUGAL_DTYPE_FLOAT16:
      case FRUGAL_DTYPE_BFLOAT16: {
        // Normal numbers in [1, 2): exponent of 1.0, any mantissa, either sign.
        const bool half = dtype == FRUGAL_DTYPE_FLOAT16;
        const auto h = static_cast<uint16_t>((half ? 0x3C00u : 0x3F80u) | ((r >> 1) & (half ? 0x3FFu : 0x7Fu)) |
                                             (negative ? 0x8000u : 0u));
        std::memcpy(at, &h, sizeof h);
        break;
      }
      case FRUGAL_DTYPE_FLOAT8_E4M3FN:
        *at = static_cast<unsigned char>((0x08 + (r >> 1) % 0x70) | (negative ? 0x80 : 0));
        break;
      case FRUGAL_DTYPE_FLOAT8_E5M2:
        *at = static_cast<unsigned char>((0x04 + (r >> 1) % 0x70) | (negative ? 0x80 : 0));
        break;
      case FRUGAL_DTYPE_FLOAT8_E8M0FNU: *at = static_cast<unsigned char>((r >> 1) % 0xFF); break;
      case FRUGAL_DTYPE_BOOL: *at = static_cast<unsigned char>(r & 1u); break;
      default:
        for (size_t b = 0; b < width; ++b) at[b] = static_cast<unsigned char>((v >> ((b % 4) * 8)) ^ (b * 0x3D));
        break;
    }
  }
}

// One collective with its host buffers and the recv bytes its one-rank
// meaning gives.
struct Case {
  std::string what;  // "all_reduce(float32, sum, in place)"
  int32_t op = 0, dtype = 0, reduce_op = 0;
  size_t count = 0;                        // frugal_comm_call.count as the core computes it
  std::unique_ptr<HostTensor> send, recv;  // send NULL for broadcast, barrier and in place (recv is both)
  bool in_place = false;
  // The "v" ops' counts and displacements, always filled (as the core
  // hands them to a backend); `packed`: the host passes NULL displacements.
  std::vector<size_t> send_counts, send_displs, recv_counts, recv_displs;
  bool packed = false;
  size_t written_begin = 0, written_end = 0;  // the recv elements the call writes
  std::vector<unsigned char> send_before, want;
};

std::unique_ptr<HostTensor> tensor(int32_t dtype, size_t elements, uint32_t seed) {
  auto t = std::make_unique<HostTensor>(dtype, static_cast<int64_t>(elements));
  fill(*t, dtype, seed);
  return t;
}

// `count` elements of `send` from element `from` land in recv at `at`.
void expect_copy(Case& k, size_t from, size_t at, size_t count) {
  const size_t width = dtype_size(k.dtype);
  k.want = k.recv->bytes();
  const HostTensor& src = k.in_place || !k.send ? *k.recv : *k.send;
  if (count > 0) std::memcpy(k.want.data() + at * width, src.bytes().data() + from * width, count * width);
  if (k.send) k.send_before = k.send->bytes();
  k.written_begin = at;
  k.written_end = at + count;
}

// Every collective's one-rank cases, with fresh buffers.
std::vector<Case> one_rank_cases() {
  std::vector<Case> out;
  uint32_t seed = 1;
  const auto add = [&](int32_t op, int32_t dtype, std::string what) -> Case& {
    Case& k = out.emplace_back();
    k.op = op;
    k.dtype = dtype;
    k.what = std::string(sdk::comm_op_name(op)) + "(" + std::move(what) + ")";
    return k;
  };
  for (const int32_t reduce_op : kReduceOps) {
    std::vector<int32_t> dtypes(std::begin(kReducible), std::end(kReducible));
    if (reduce_op != FRUGAL_REDUCE_SUM) dtypes.push_back(FRUGAL_DTYPE_UINT8);
    for (const int32_t dtype : dtypes) {
      for (const bool in_place : {false, true}) {
        Case& k = add(FRUGAL_COMM_ALL_REDUCE, dtype,
                      dtype_text(dtype) + ", " + reduce_text(reduce_op) + (in_place ? ", in place" : ""));
        k.reduce_op = reduce_op;
        k.count = kCount;
        k.in_place = in_place;
        if (!in_place) k.send = tensor(dtype, kCount, seed++);
        k.recv = tensor(dtype, kCount, seed++);
        expect_copy(k, 0, 0, kCount);
      }
      Case& k = add(FRUGAL_COMM_REDUCE_SCATTER, dtype, dtype_text(dtype) + ", " + reduce_text(reduce_op));
      k.reduce_op = reduce_op;
      k.count = kCount;
      k.send = tensor(dtype, kCount, seed++);  // size x count
      k.recv = tensor(dtype, kCount, seed++);
      expect_copy(k, 0, 0, kCount);
    }
  }
  for (const int32_t dtype : kEveryDtype) {
    const std::string name = dtype_text(dtype);
    {
      Case& k = add(FRUGAL_COMM_BROADCAST, dtype, name + ", root 0");
      k.count = kCount;
      k.recv = tensor(dtype, kCount, seed++);
      expect_copy(k, 0, 0, kCount);  // the root's buffer stays as it is
    }
    for (const int32_t op : {FRUGAL_COMM_ALL_GATHER, FRUGAL_COMM_ALL_TO_ALL}) {
      Case& k = add(op, dtype, name);
      k.count = kCount;
      k.send = tensor(dtype, kCount, seed++);
      k.recv = tensor(dtype, kCount, seed++);
      expect_copy(k, 0, 0, kCount);
    }
    // all_gather_v: the part at recv_displs[0] = 5 of a recv 11 elements
    // longer, then (packed) at 0.
    for (const bool packed : {false, true}) {
      Case& k = add(FRUGAL_COMM_ALL_GATHER_V, dtype,
                    name + (packed ? ", recv_displs NULL" : ", recv_displs {5}") + ", recv of " +
                        std::to_string(kCount + 11) + " elements");
      k.count = kCount;
      k.send = tensor(dtype, kCount, seed++);
      k.recv = tensor(dtype, kCount + 11, seed++);
      k.recv_counts = {kCount};
      k.recv_displs = {packed ? size_t{0} : size_t{5}};
      k.packed = packed;
      expect_copy(k, 0, k.recv_displs[0], kCount);
    }
    // all_to_all_v: send_counts[0] elements from send_displs[0] land at
    // recv_displs[0]; then packed; then zero counts (recv untouched).
    for (const int variant : {0, 1, 2}) {
      const size_t n = variant == 2 ? 0 : kCount;
      Case& k = add(FRUGAL_COMM_ALL_TO_ALL_V, dtype,
                    name +
                        (variant == 0   ? ", send_displs {6}, recv_displs {4}"
                         : variant == 1 ? ", displacements NULL"
                                        : ", counts {0}") +
                        ", send of " + std::to_string(kCount + 6) + " and recv of " + std::to_string(kCount + 9) +
                        " elements");
      k.send = tensor(dtype, kCount + 6, seed++);
      k.recv = tensor(dtype, kCount + 9, seed++);
      k.send_counts = {n};
      k.recv_counts = {n};
      k.send_displs = {variant == 0 ? size_t{6} : size_t{0}};
      k.recv_displs = {variant == 0 ? size_t{4} : size_t{0}};
      k.packed = variant == 1;
      expect_copy(k, k.send_displs[0], k.recv_displs[0], n);
    }
  }
  add(FRUGAL_COMM_BARRIER, 0, "");
  return out;
}

// The call the core hands a backend for `k` (comm_vtable.h: "the
// displacements of the v collectives always filled in and timeout_ms
// always > 0").
frugal_comm_call call_for(Case& k) {
  frugal_comm_call call{};
  call.struct_size = sizeof call;
  call.op = k.op;
  call.dtype = k.op == FRUGAL_COMM_BARRIER ? 0 : k.dtype;
  call.reduce_op = k.reduce_op;
  call.recv = k.recv ? k.recv->data<unsigned char>() : nullptr;
  call.send = k.in_place ? call.recv : k.send ? k.send->data<unsigned char>() : nullptr;
  call.count = k.op == FRUGAL_COMM_ALL_TO_ALL_V ? 0 : k.count;
  if (k.op == FRUGAL_COMM_ALL_TO_ALL_V) {
    call.send_counts = k.send_counts.data();
    call.send_displs = k.send_displs.data();
  }
  if (k.op == FRUGAL_COMM_ALL_GATHER_V || k.op == FRUGAL_COMM_ALL_TO_ALL_V) {
    call.recv_counts = k.recv_counts.data();
    call.recv_displs = k.recv_displs.data();
  }
  call.timeout_ms = kTimeoutMs;
  return call;
}

// `k` through libfrugal's collectives (frugal/comm.h).
frugal_error* run_core(frugal_comm* comm, Case& k) {
  const frugal_tensor* send = k.send ? k.send->view() : nullptr;
  const frugal_tensor* recv = k.recv ? k.recv->view() : nullptr;
  const size_t* send_displs = k.packed ? nullptr : k.send_displs.data();
  const size_t* recv_displs = k.packed ? nullptr : k.recv_displs.data();
  switch (k.op) {
    case FRUGAL_COMM_ALL_REDUCE: return frugal_comm_all_reduce(comm, k.in_place ? recv : send, recv, k.reduce_op);
    case FRUGAL_COMM_BROADCAST: return frugal_comm_broadcast(comm, recv, 0);
    case FRUGAL_COMM_ALL_GATHER: return frugal_comm_all_gather(comm, send, recv);
    case FRUGAL_COMM_ALL_GATHER_V: return frugal_comm_all_gather_v(comm, send, recv, k.recv_counts.data(), recv_displs);
    case FRUGAL_COMM_REDUCE_SCATTER: return frugal_comm_reduce_scatter(comm, send, recv, k.reduce_op);
    case FRUGAL_COMM_ALL_TO_ALL: return frugal_comm_all_to_all(comm, send, recv);
    case FRUGAL_COMM_ALL_TO_ALL_V:
      return frugal_comm_all_to_all_v(comm, send, k.send_counts.data(), send_displs, recv, k.recv_counts.data(),
                                      recv_displs);
    default: return frugal_comm_barrier(comm);
  }
}

std::string hex(const unsigned char* p, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += ' ';
    out += kDigits[p[i] >> 4];
    out += kDigits[p[i] & 15];
  }
  return out;
}

// "" when the call left recv holding its one-rank meaning and send as it
// was, else the first element that differs.
std::string mismatch(const Case& k) {
  if (k.send && !k.in_place && k.send->bytes() != k.send_before)
    return k.what + ": send was changed (it is the call's input, never written)";
  if (!k.recv || k.recv->bytes() == k.want) return "";
  const size_t width = dtype_size(k.dtype);
  const auto& got = k.recv->bytes();
  size_t i = 0;
  while (std::memcmp(got.data() + i * width, k.want.data() + i * width, width) == 0) ++i;
  const bool inside = i >= k.written_begin && i < k.written_end;
  const std::string where =
      inside ? "recv element " + std::to_string(i) + " is bytes " + hex(got.data() + i * width, width) +
                   "; the one-rank result is " + hex(k.want.data() + i * width, width)
             : "recv element " + std::to_string(i) + ", outside the part the call writes (elements " +
                   std::to_string(k.written_begin) + ".." + std::to_string(k.written_end) +
                   "), was changed: it must be left as it was";
  return k.what + ": " + where;
}

// What each op's one-rank meaning is, and the header sentence it rests on.
std::string meaning(int32_t op) {
  switch (op) {
    case FRUGAL_COMM_ALL_REDUCE:
      return "sum, max and min of every reducible dtype, out of place and in place, give the input (comm_vtable.h: "
             "recv = reduce over ranks of send; send may equal recv)";
    case FRUGAL_COMM_BROADCAST:
      return "root 0 keeps its buffer, every dtype (comm_vtable.h: recv on every rank = recv of rank root)";
    case FRUGAL_COMM_ALL_GATHER:
      return "recv is send, every dtype (comm_vtable.h: recv[size * count], block r is rank r's send)";
    case FRUGAL_COMM_ALL_GATHER_V:
      return "send lands at recv_displs[0] (5, and 0 for NULL displacements), the other recv elements untouched, "
             "every dtype (comm_vtable.h: rank r's send at recv_displs[r])";
    case FRUGAL_COMM_REDUCE_SCATTER:
      return "recv is block 0 of send for sum, max and min of every reducible dtype (comm_vtable.h: recv on rank r "
             "= reduce over ranks of block r of send)";
    case FRUGAL_COMM_ALL_TO_ALL: return "recv is send, every dtype (comm_vtable.h: send block j goes to rank j)";
    case FRUGAL_COMM_ALL_TO_ALL_V:
      return "send_counts[0] elements from send_displs[0] land at recv_displs[0] (given, packed, and zero counts), "
             "the other recv elements untouched, every dtype (comm_vtable.h: send_counts[j] elements from send + "
             "send_displs[j] go to rank j)";
    default: return "returns at once on a group of one (comm_vtable.h: returns once every rank has entered it)";
  }
}

// Runs every case with `run` and gives one verdict per op under `rule`;
// `via` names the path ("frugal_comm_" or "run: ").
void check_cases(Checks& c, const std::string& rule, const std::string& via, std::vector<Case>& cases,
                 const std::function<frugal_error*(Case&)>& run) {
  for (const int32_t op : kOps) {
    c.begin(rule);
    std::string bad;
    size_t tried = 0;
    for (Case& k : cases) {
      if (k.op != op) continue;
      ++tried;
      if (const Error e(run(k)); e) {
        bad = k.what + " -> " + e.describe() + "; a group of one must run it";
      } else {
        bad = mismatch(k);
      }
      if (!bad.empty()) break;
    }
    std::string message = via + sdk::comm_op_name(op);
    message += bad.empty() ? ", " + std::to_string(tried) + " calls on one rank: " : ": " + bad + "; on one rank: ";
    message += meaning(op);
    c.check(bad.empty(), rule, message);
  }
}

// The recv bytes of every case, in order: what an instance answered.
std::vector<unsigned char> results_of(const std::vector<Case>& cases) {
  std::vector<unsigned char> out;
  for (const Case& k : cases)
    if (k.recv) k.recv->append_to(out);
  return out;
}

// Why the kit cannot check a comm's values, or "" when it can.
std::string values_unchecked(int32_t rank, int32_t size, int32_t device_type) {
  if (size > 1)
    return "rank " + std::to_string(rank) + " of " + std::to_string(size) +
           ": the kit was started as one rank of a group (e.g. under mpirun) and checks one process, while a "
           "collective's result depends on every rank's data; run the kit as a single process (for \"mpi\": "
           "without mpirun, a group of one) to check every collective's result";
  if (device_type == FRUGAL_DEVICE_CUDA)
    return frugal_cuda_device_count() == 0
               ? "the comm moves CUDA memory (info device_type CUDA) and no CUDA device is present "
                 "(frugal_cuda_device_count() is 0): run the kit on a machine with a GPU"
               : "the comm moves CUDA memory (info device_type CUDA) and the kit allocates host memory only (it "
                 "links no CUDA runtime): check the collectives' results with the backend's own device tests";
  return "";
}

// A comm made through libfrugal, destroyed on scope exit.
struct CoreComm {
  frugal_comm* p = nullptr;
  CoreComm() = default;
  explicit CoreComm(frugal_comm* comm) : p(comm) {}
  ~CoreComm() { frugal_comm_destroy(p); }
  CoreComm(const CoreComm&) = delete;
  CoreComm& operator=(const CoreComm&) = delete;
};

// One float32 sum on a group of one: "" when recv is send.
template <typename Run>
std::string one_all_reduce(Run&& run) {
  std::vector<Case> cases = one_rank_cases();
  Case& k = cases.front();  // all_reduce(float32, sum)
  if (const Error e(run(k)); e) return k.what + " -> " + e.describe();
  return mismatch(k);
}

void check_core_split(Checks& c, frugal_comm* comm, int32_t rank, int32_t device_type, bool values) {
  c.begin("core-split");
  frugal_comm* none = nullptr;
  const Error ne(frugal_comm_split(comm, FRUGAL_COMM_COLOR_NONE, 0, &none));
  const CoreComm none_guard(none);
  c.check(!ne && none == nullptr, "core-split",
          "frugal_comm_split(FRUGAL_COMM_COLOR_NONE) -> " + ne.describe() + (none ? ", a sub-group" : ", NULL") +
              " (comm.h: a rank passing FRUGAL_COMM_COLOR_NONE joins none and gets *out == NULL)");
  frugal_comm* sub = nullptr;
  const Error se(frugal_comm_split(comm, rank, 0, &sub));
  const CoreComm sub_guard(sub);
  if (se || sub == nullptr)
    return c.fail("core-split", "frugal_comm_split(color = rank " + std::to_string(rank) + ") -> " + se.describe() +
                                    "; every rank passing its own color must get a group of one");
  const int32_t sub_rank = frugal_comm_rank(sub), sub_size = frugal_comm_size(sub);
  const int32_t sub_device = frugal_comm_device_type(sub);
  std::string bad;
  if (sub_rank != 0 || sub_size != 1 || sub_device != device_type)
    bad = "the sub-group is rank " + std::to_string(sub_rank) + " of " + std::to_string(sub_size) + " on " +
          device_text(sub_device) + "; expected rank 0 of 1 on " + device_text(device_type);
  else if (values)
    bad = one_all_reduce([&](Case& k) { return run_core(sub, k); });
  c.check(bad.empty(), "core-split",
          bad.empty() ? std::string("frugal_comm_split(color = rank) gives a group of one, rank 0 of 1 on the "
                                    "parent's device") +
                            (values ? ", whose all_reduce gives its input" : "") +
                            " (comm.h: ranks passing the same color form a sub-group)"
                      : "frugal_comm_split(color = rank " + std::to_string(rank) + "): " + bad);
}

void check_core_timeout(Checks& c, frugal_comm* comm, bool values) {
  c.begin("core-timeout");
  c.expect_error("core-timeout", "frugal_comm_set_timeout(0) (comm.h: > 0; FRUGAL_ERR_INVALID_ARGUMENT otherwise)",
                 frugal_comm_set_timeout(comm, 0), FRUGAL_ERR_INVALID_ARGUMENT);
  c.expect_error("core-timeout", "frugal_comm_set_timeout(-1)", frugal_comm_set_timeout(comm, -1),
                 FRUGAL_ERR_INVALID_ARGUMENT);
  if (!c.expect_ok("core-timeout", "frugal_comm_set_timeout(2000)", frugal_comm_set_timeout(comm, 2000)) || !values)
    return;
  c.expect_ok("core-timeout",
              "frugal_comm_barrier after frugal_comm_set_timeout(2000) (the backend gets timeout_ms 2000; a group of "
              "one never waits that long)",
              frugal_comm_barrier(comm));
}

// info() into a struct_size of `size`, in a buffer prefilled with 0xAB.
struct InfoCall {
  Error error;
  frugal_comm_info info{};
  bool untouched = true;  // nothing written past struct_size
};

InfoCall info_sized(const frugal_comm_vtable* vt, void* comm, size_t size) {
  struct Guarded {
    frugal_comm_info info;
    unsigned char tail[32];
  } buffer;
  std::memset(&buffer, 0xAB, sizeof buffer);
  buffer.info.struct_size = size;
  frugal_error* e = vt->info(comm, &buffer.info);
  InfoCall out{Error(e)};
  const auto* bytes = reinterpret_cast<const unsigned char*>(&buffer);
  for (size_t i = size; i < sizeof buffer; ++i) out.untouched = out.untouched && bytes[i] == 0xAB;
  std::memcpy(&out.info, &buffer.info, sizeof out.info);
  return out;
}

// "" for an answer comm_vtable.h allows, else what is wrong with it.
std::string info_error(const frugal_comm_info& i) {
  if (i.size < 1) return "size " + std::to_string(i.size) + " (comm_vtable.h: ranks in the group, >= 1)";
  if (i.rank < 0 || i.rank >= i.size)
    return "rank " + std::to_string(i.rank) + " of " + std::to_string(i.size) +
           " (comm_vtable.h: this rank, in [0, size))";
  if (i.device_type != FRUGAL_DEVICE_CPU && i.device_type != FRUGAL_DEVICE_CUDA)
    return "device_type " + std::to_string(i.device_type) +
           " (comm_vtable.h: FRUGAL_DEVICE_CPU for a host backend, FRUGAL_DEVICE_CUDA for a device backend)";
  if (i.device_type == FRUGAL_DEVICE_CPU && i.device_id != 0)
    return "device_id " + std::to_string(i.device_id) +
           " on a host backend (comm_vtable.h: CUDA ordinal of a device backend; 0 otherwise)";
  if (i.device_type == FRUGAL_DEVICE_CUDA && i.device_id < 0)
    return "device_id " + std::to_string(i.device_id) + " (comm_vtable.h: the CUDA ordinal of a device backend)";
  return "";
}

std::string info_text(const frugal_comm_info& i) {
  return "rank " + std::to_string(i.rank) + " of " + std::to_string(i.size) + " on " + device_text(i.device_type);
}

void check_info_struct_size(Checks& c, const frugal_comm_vtable* vt, void* comm, const frugal_comm_info& reference) {
  c.begin("struct-size");
  struct LargerInfo {
    frugal_comm_info info;
    unsigned char tail[32];
  };
  const InfoCall big = info_sized(vt, comm, sizeof(LargerInfo));
  const size_t fields = sizeof(frugal_comm_info) - sizeof(size_t);
  const bool same = !big.error && std::memcmp(reinterpret_cast<const char*>(&big.info) + sizeof(size_t),
                                              reinterpret_cast<const char*>(&reference) + sizeof(size_t), fields) == 0;
  c.check(same && big.untouched, "struct-size",
          "info into struct_size " + std::to_string(sizeof(LargerInfo)) + " (a newer core's): the same fields as at " +
              std::to_string(sizeof(frugal_comm_info)) + ", nothing written past them (" + big.error.describe() +
              (same ? "" : ", fields differ") + (big.untouched ? "" : ", the tail was written") + ")");
  const InfoCall tiny = info_sized(vt, comm, sizeof(size_t));
  c.check(!tiny.error && tiny.untouched, "struct-size",
          "info into a struct_size of 8 writes nothing past it (comm_vtable.h: the callee fills up to struct_size) "
          "-> " +
              tiny.error.describe() + (tiny.untouched ? "" : ", bytes past struct_size written"));
}

void check_null_and_invalid(Checks& c, const frugal_comm_vtable* vt, void* comm) {
  c.begin("null-arguments");
  c.expect_error("null-arguments", "info(out NULL)", vt->info(comm, nullptr));
  c.expect_error("null-arguments", "run(call NULL)", vt->run(comm, nullptr));
  void** no_sub = nullptr;
  c.expect_error("null-arguments", "split(color 0, sub NULL)", vt->split(comm, 0, 0, kTimeoutMs, no_sub));

  c.begin("invalid-arguments");
  for (const int32_t op : {0, FRUGAL_COMM_BARRIER + 1, 99}) {
    frugal_comm_call call{};
    call.struct_size = sizeof call;
    call.op = op;
    call.dtype = FRUGAL_DTYPE_FLOAT32;
    call.timeout_ms = kTimeoutMs;
    c.expect_error(
        "invalid-arguments",
        "run(op " + std::to_string(op) +
            ") (comm_vtable.h: op is \"one of frugal_comm_op_values\"; a backend handed another must refuse it, not "
            "guess)",
        vt->run(comm, &call));
  }
  c.begin("struct-size");
  // A barrier: a backend that ignores struct_size runs it and succeeds.
  frugal_comm_call call{};
  call.struct_size = FRUGAL_COMM_CALL_MIN_SIZE - sizeof(int64_t);
  call.op = FRUGAL_COMM_BARRIER;
  call.timeout_ms = kTimeoutMs;
  c.expect_error("struct-size",
                 "run(a barrier, call struct_size " + std::to_string(call.struct_size) +
                     ", without timeout_ms) (comm_vtable.h: FRUGAL_COMM_CALL_MIN_SIZE, through timeout_ms, is what a "
                     "receiver requires; types.h: a struct too small to hold required fields is ABI_MISMATCH)",
                 vt->run(comm, &call), FRUGAL_ERR_ABI_MISMATCH);
}

// The direct split rules: COLOR_NONE gives NULL; color = rank a group of
// one, usable after its parent is destroyed.
void check_split(Checks& c, const frugal_comm_vtable* vt, void* comm, const frugal_comm_info& info, bool values) {
  c.begin("comm-split");
  int marker = 0;
  void* none = &marker;  // must be overwritten with NULL
  const Error ne(vt->split(comm, FRUGAL_COMM_COLOR_NONE, 0, kTimeoutMs, &none));
  const bool got_null = none == nullptr;
  if (!ne && !got_null && none != &marker) vt->destroy(none);
  c.check(!ne && got_null, "comm-split",
          "split(FRUGAL_COMM_COLOR_NONE) -> " + ne.describe() +
              (got_null          ? ", sub NULL"
               : none == &marker ? ", sub not written"
                                 : ", a sub-group") +
              " (comm_vtable.h: a rank passing FRUGAL_COMM_COLOR_NONE joins none and gets NULL)");

  Instance parent = c.create("comm-split");
  if (!parent) return;
  void* made = nullptr;
  const Error se(vt->split(parent.get(), info.rank, 0, kTimeoutMs, &made));
  if (se || made == nullptr)
    return c.fail("comm-split", "split(color = rank " + std::to_string(info.rank) + ") -> " + se.describe() +
                                    (made ? "" : ", sub NULL") +
                                    "; comm_vtable.h: ranks passing the same color form one sub-group (here: of one)");
  Instance sub(made, vt->destroy);
  frugal_comm_info sub_info{};
  sub_info.struct_size = sizeof sub_info;
  const Error ie(vt->info(sub.get(), &sub_info));
  std::string bad;
  if (ie)
    bad = "info on the sub-group -> " + ie.describe() + " (comm_vtable.h: info must succeed for a live instance)";
  else if (sub_info.rank != 0 || sub_info.size != 1 || sub_info.device_type != info.device_type)
    bad = "the sub-group's info is " + info_text(sub_info) + "; a group of one is rank 0 of 1 on " +
          device_text(info.device_type);
  c.check(bad.empty(), "comm-split",
          bad.empty() ? "split(color = rank, key 0) gives a group of one: info rank 0 of 1 on the parent's device"
                      : "split(color = rank " + std::to_string(info.rank) + "): " + bad);
  if (!bad.empty() || !values) return;
  // comm_vtable.h: sub is "a new instance released by destroy"; the core
  // destroys a parent whenever the host does, sub-groups or not.
  parent.reset();
  const std::string used = one_all_reduce([&](Case& k) {
    const frugal_comm_call call = call_for(k);
    return vt->run(sub.get(), &call);
  });
  c.check(used.empty(), "comm-split",
          used.empty() ? "the group of one runs an all_reduce after its parent is destroyed (comm_vtable.h: sub is a "
                         "new instance released by destroy)"
                       : "after its parent is destroyed, the group of one fails: " + used +
                             " (comm_vtable.h: sub is a new instance released by its own destroy; the core destroys "
                             "the parent when the host does)");
}

// The cases run on `comm` through the vtable with a call of `call_size`
// bytes (the core's, or a larger one with a zeroed tail).
std::function<frugal_error*(Case&)> direct_runner(const frugal_comm_vtable* vt, void* comm,
                                                  size_t call_size = sizeof(frugal_comm_call)) {
  return [vt, comm, call_size](Case& k) {
    Larger<frugal_comm_call> call{};
    call.args = call_for(k);
    call.args.struct_size = call_size;
    return vt->run(comm, &call.args);
  };
}

void check_direct_values(Checks& c, const frugal_comm_vtable* vt, void* comm) {
  std::vector<Case> cases = one_rank_cases();
  check_cases(c, "comm-collectives", "run: ", cases, direct_runner(vt, comm));
  const std::vector<unsigned char> reference = results_of(cases);

  c.begin("struct-size");
  // The same calls with a larger call struct must answer as these did,
  // errors included: comm-collectives judged the answers themselves.
  std::vector<Case> larger = one_rank_cases(), standard = one_rank_cases();
  const auto run = direct_runner(vt, comm, sizeof(Larger<frugal_comm_call>));
  const auto run_standard = direct_runner(vt, comm);
  std::string bad;
  for (size_t i = 0; i < larger.size() && bad.empty(); ++i) {
    const Error e(run(larger[i]));
    const Error before(run_standard(standard[i]));
    if (bool(e) != bool(before))
      bad = larger[i].what + " -> " + e.describe() + ", at this header's size " + before.describe();
    else if (larger[i].recv && larger[i].recv->bytes() != standard[i].recv->bytes())
      bad = larger[i].what + " leaves other recv bytes than at this header's size";
  }
  c.check(bad.empty(), "struct-size",
          bad.empty()
              ? "every collective with a call of struct_size " + std::to_string(sizeof(Larger<frugal_comm_call>)) +
                    " (a zeroed 64-byte tail, as a newer core builds it) answers as with this header's size"
              : "a call of struct_size " + std::to_string(sizeof(Larger<frugal_comm_call>)) + " (zeroed tail): " + bad +
                    " (a receiver reads the fields it knows and ignores the rest)");

  if (c.s.flags & FRUGAL_STRATEGY_DETERMINISTIC) {
    c.begin("determinism");
    Instance b = c.create("determinism");
    if (b) {
      std::vector<Case> again = one_rank_cases();
      const auto run_b = direct_runner(vt, b.get());
      for (Case& k : again) const Error e(run_b(k));
      const std::vector<unsigned char> results = results_of(again);
      c.check(results == reference, "determinism",
              results == reference ? "two instances give bit-identical results for every collective "
                                     "(FRUGAL_STRATEGY_DETERMINISTIC)"
                                   : "two instances give different results for the same collectives despite "
                                     "FRUGAL_STRATEGY_DETERMINISTIC");
    }
  }
  if (c.s.flags & FRUGAL_STRATEGY_THREAD_SAFE) {
    c.begin("thread-safety");
    constexpr int kThreads = 4;
    std::vector<std::string> errors(kThreads);
    run_concurrently(kThreads, [&](int t) {
      std::vector<Case> own = one_rank_cases();
      const auto run_t = direct_runner(vt, comm);
      for (Case& k : own) {
        if (const Error e(run_t(k)); e) errors[t] = k.what + " -> " + e.describe();
        if (errors[t].empty()) errors[t] = mismatch(k);
        if (!errors[t].empty()) return;
      }
    });
    std::string first;
    for (const auto& e : errors)
      if (first.empty()) first = e;
    c.check(first.empty(), "thread-safety",
            first.empty() ? "4 threads running every collective on one instance (own buffers) get the one-rank "
                            "results (FRUGAL_STRATEGY_THREAD_SAFE)"
                          : "concurrent calls on one instance despite FRUGAL_STRATEGY_THREAD_SAFE: " + first);
  }
}

}  // namespace

void check_comm_core(Checks& c) {
  c.begin("core");
  const Options options(c.user_options());
  frugal_comm* made = nullptr;
  const Error e(frugal_comm_create(c.s.context, c.s.label.c_str(), options.p, &made));
  if (e) return c.fail("core", "frugal_comm_create: " + e.describe());
  const CoreComm comm(made);
  frugal_comm_info info{};
  info.struct_size = sizeof info;
  info.rank = frugal_comm_rank(comm.p);
  info.size = frugal_comm_size(comm.p);
  info.device_type = frugal_comm_device_type(comm.p);
  const std::string bad = info_error(info);
  c.check(bad.empty(), "core",
          bad.empty() ? "frugal_comm_create gives " + info_text(info) : "frugal_comm_create: " + bad);
  if (!bad.empty()) return;
  // The direct stage compares its info with this answer.
  const int32_t answer[] = {info.rank, info.size, info.device_type};
  c.core_result.assign(reinterpret_cast<const unsigned char*>(answer),
                       reinterpret_cast<const unsigned char*>(answer) + sizeof answer);

  const std::string why = values_unchecked(info.rank, info.size, info.device_type);
  if (why.empty()) {
    std::vector<Case> cases = one_rank_cases();
    check_cases(c, "core-collectives", "frugal_comm_", cases, [&](Case& k) { return run_core(comm.p, k); });
  } else {
    c.skip("core-collectives", why);
  }
  check_core_split(c, comm.p, info.rank, info.device_type, why.empty());
  check_core_timeout(c, comm.p, why.empty());
}

void check_comm(Checks& c) {
  const auto* vt = static_cast<const frugal_comm_vtable*>(c.s.vtable);
  Instance a = c.create();
  if (!a) return;
  c.begin("comm-info");
  frugal_comm_info info{};
  info.struct_size = sizeof info;
  if (const Error e(vt->info(a.get(), &info)); e)
    return c.fail("comm-info", "info -> " + e.describe() + " (comm_vtable.h: info must succeed for a live instance)");
  const std::string bad = info_error(info);
  c.check(bad.empty(), "comm-info", bad.empty() ? "info gives " + info_text(info) : "info gives " + bad);
  if (!bad.empty()) return;
  if (c.core_result.size() == 3 * sizeof(int32_t)) {
    int32_t core[3] = {0, 0, 0};
    std::memcpy(core, c.core_result.data(), sizeof core);
    const bool same = core[0] == info.rank && core[1] == info.size && core[2] == info.device_type;
    c.check(same, "comm-info",
            same ? "info agrees with frugal_comm_rank, frugal_comm_size and frugal_comm_device_type of the comm made "
                   "through libfrugal"
                 : "info gives " + info_text(info) + " but the comm made through libfrugal said rank " +
                       std::to_string(core[0]) + " of " + std::to_string(core[1]) + " on " + device_text(core[2]) +
                       " (the same process, the same options: the same group)");
  }
  check_info_struct_size(c, vt, a.get(), info);
  check_null_and_invalid(c, vt, a.get());
  const std::string why = values_unchecked(info.rank, info.size, info.device_type);
  check_split(c, vt, a.get(), info, why.empty());
  if (!why.empty()) return c.skip("comm-collectives", why);
  check_direct_values(c, vt, a.get());
}

}  // namespace frugal::conformance
