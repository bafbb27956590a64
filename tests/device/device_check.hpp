// Helpers shared by the GPU checks that compare a CUDA path with the CPU
// path through the C API (quant_cuda_check, router_cuda_check): frugal and
// CUDA errors as exceptions, device buffers with a host twin compared byte
// for byte, 2-D tensor views, a seedable hash-based random stream, and the
// PASS / FAIL line of a group of cases, and the main() of a check.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuda_support/cuda_support.hpp"
#include "frugal/frugal.h"

namespace frugal::device_check {

// ---------------------------------------------------------------------------
// Errors, buffers, views
// ---------------------------------------------------------------------------

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The error's code and message, or code 0 for success; the error is destroyed.
struct Outcome {
  int32_t code = 0;
  std::string message;
};

inline Outcome outcome(frugal_error* e) {
  Outcome o;
  if (e != nullptr) {
    o.code = frugal_error_code(e);
    o.message = frugal_error_message(e);
    frugal_error_destroy(e);
  }
  return o;
}

inline void expect_ok(frugal_error* e, const std::string& what) {
  const Outcome o = outcome(e);
  if (o.code != 0) throw Failure(what + ": " + o.message);
}

// A CUDA error worded as the plugins word it (plugins/cuda_support).
inline void cuda_ok(cudaError_t s, const char* what) {
  if (s != cudaSuccess) throw Failure(plugin_cuda::cuda_error_text(s, what));
}

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes_ != 0) cuda_ok(cudaMalloc(&p_, bytes_), "cudaMalloc");
  }
  ~DeviceBuffer() {
    if (p_ != nullptr) static_cast<void>(cudaFree(p_));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return p_; }
  void upload(const void* src) const {
    if (bytes_ != 0) cuda_ok(cudaMemcpy(p_, src, bytes_, cudaMemcpyHostToDevice), "cudaMemcpy to device");
  }
  std::vector<std::uint8_t> download() const {
    std::vector<std::uint8_t> out(bytes_);
    if (bytes_ != 0) cuda_ok(cudaMemcpy(out.data(), p_, bytes_, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    return out;
  }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

// The same bytes on the host (the CPU call's tensor) and on the device (the CUDA call's).
struct Twin {
  std::vector<std::uint8_t> host;
  DeviceBuffer dev;

  explicit Twin(std::vector<std::uint8_t> content) : host(std::move(content)), dev(host.size()) {
    dev.upload(host.data());
  }
  Twin(std::size_t bytes, std::uint8_t fill) : Twin(std::vector<std::uint8_t>(bytes, fill)) {}

  void* side(bool gpu) { return gpu ? dev.get() : static_cast<void*>(host.data()); }
  void set(const std::vector<std::uint8_t>& content) {
    host = content;
    dev.upload(host.data());
  }
};

// First differing byte of the two sides, or "" when equal.
inline std::string compare(const Twin& t, const char* what) {
  const std::vector<std::uint8_t> back = t.dev.download();
  for (std::size_t i = 0; i < back.size(); ++i) {
    if (back[i] != t.host[i]) {
      char line[160];
      std::size_t count = 0;
      for (std::size_t j = i; j < back.size(); ++j) count += back[j] != t.host[j];
      std::snprintf(line, sizeof line, "%s differs at byte %zu: cpu 0x%02x, cuda 0x%02x (%zu bytes differ)", what, i,
                    t.host[i], back[i], count);
      return line;
    }
  }
  return {};
}

// Element sizes and names from libfrugal's own dtype table.
inline std::size_t dtype_bytes(int32_t dtype) { return static_cast<std::size_t>(frugal_dtype_bits(dtype)) / 8; }
inline const char* dtype_label(int32_t dtype) { return frugal_dtype_name(dtype); }

// A 2-D tensor view. Not movable: t points at shape and strides inside.
struct View {
  frugal_tensor t{};
  int64_t shape[2]{};
  int64_t strides[2]{};

  View() = default;
  View(const View&) = delete;
  View& operator=(const View&) = delete;

  frugal_tensor* set(void* data, int32_t dtype, frugal_device device, int64_t rows, int64_t cols, int64_t stride) {
    t = frugal_tensor{};
    t.struct_size = sizeof(t);
    t.data = data;
    t.dtype = dtype;
    t.ndim = 2;
    t.device = device;
    shape[0] = rows;
    shape[1] = cols;
    strides[0] = stride;
    strides[1] = 1;
    t.shape = shape;
    t.strides = strides;
    return &t;
  }
};

// ---------------------------------------------------------------------------
// Random data
// ---------------------------------------------------------------------------

// splitmix64: a well-spread stream from any seed.
constexpr std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct Rng {
  std::uint64_t state = 0;
  explicit Rng(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() { return mix(state++); }
};

// Uniform in [0, 1) and a cheap near-normal sample (Irwin-Hall of four
// 16-bit uniforms, unit variance) from one 64-bit hash.
inline double unit(std::uint64_t h) { return static_cast<double>(h >> 11) * 0x1p-53; }
inline double near_normal(std::uint64_t h) {
  double s = 0.0;
  for (int i = 0; i < 4; ++i) s += static_cast<double>((h >> (16 * i)) & 0xFFFFu) * 0x1p-16;
  return (s - 2.0) * 1.7320508075688772;  // sqrt(12 / 4)
}

struct Group {
  int cases = 0;
  int failed = 0;
  std::string first;
};

inline bool report(const std::string& name, const Group& g) {
  if (g.failed == 0) {
    std::printf("PASS  %-58s %d cases\n", name.c_str(), g.cases);
  } else {
    std::printf("FAIL  %-58s %d of %d cases; first: %s\n", name.c_str(), g.failed, g.cases, g.first.c_str());
  }
  std::fflush(stdout);
  return g.failed == 0;
}

// ---------------------------------------------------------------------------
// The program
// ---------------------------------------------------------------------------

// What a check's body works with: a context with the plugins discovered,
// the current device, a non-blocking stream, the seed and --quick.
struct Session {
  frugal_context* ctx = nullptr;
  int device = 0;
  cudaStream_t stream = nullptr;
  std::uint64_t seed = 0;
  bool quick = false;
};

// main() of a check program, usage: <name> [--quick] [--seed N] (the seed
// comes from the clock unless given). Without a CUDA device it prints
// "SKIP: no CUDA device" and returns 0; otherwise it runs body(session),
// which returns true when every group passed, between a header and a
// footer that name the seed, and returns the exit status (1 on a failure,
// 2 on a bad command line).
template <class Body>
int run_check(const char* name, int argc, char** argv, Body body) {
  Session s;
  s.seed = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      s.quick = true;
    } else if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      s.seed = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--seed N]\n", argv[0]);
      return 2;
    }
  }
  int devices = 0;
  if (frugal_cuda_device_count() < 1 || cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
    std::printf("SKIP: no CUDA device\n");
    return 0;
  }
  const auto seed = static_cast<unsigned long long>(s.seed);
  std::printf("%s seed=%llu%s\n", name, seed, s.quick ? " (quick)" : "");
  bool ok = false;
  try {
    cuda_ok(cudaGetDevice(&s.device), "cudaGetDevice");
    cuda_ok(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    expect_ok(frugal_context_create(&s.ctx), "frugal_context_create");
    std::unique_ptr<frugal_context, void (*)(frugal_context*)> ctx_guard(s.ctx, frugal_context_destroy);
    expect_ok(frugal_context_discover_plugins(s.ctx, 0, nullptr), "frugal_context_discover_plugins");
    ok = body(static_cast<const Session&>(s));
    static_cast<void>(cudaStreamDestroy(s.stream));
  } catch (const std::exception& e) {
    std::printf("FAIL  %s setup: %s\n", name, e.what());
    ok = false;
  }
  std::printf("%s: %s (seed=%llu)\n", name, ok ? "PASS" : "FAIL", seed);
  return ok ? 0 : 1;
}

}  // namespace frugal::device_check
