// GPU check of the checkpoint engine (needs a CUDA device): a CUDA tensor
// is snapshotted device -> pinned host, persisted, restored into a zeroed
// device buffer and compared byte for byte; the snapshot stall is printed
// next to a plain cudaMemcpy of the same bytes into pinned memory.
// usage: ckpt_cuda_check STORE_DIR BYTES
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_support/cuda_support.hpp"
#include "frugal/frugal.h"

namespace {

void check(frugal_error* error, const char* what) {
  if (error == nullptr) return;
  std::fprintf(stderr, "%s: %s\n", what, frugal_error_message(error));
  std::exit(1);
}

void check_cuda(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "%s\n", frugal::plugin_cuda::cuda_error_text(status, what).c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s STORE_DIR BYTES\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const size_t bytes = std::strtoull(argv[2], nullptr, 10) / 4 * 4;
  const int64_t count = static_cast<int64_t>(bytes / 4);

  std::vector<float> host(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) host[static_cast<size_t>(i)] = static_cast<float>(i % 9973) * 0.5f;
  void* device = nullptr;
  check_cuda(cudaMalloc(&device, bytes), "cudaMalloc");
  check_cuda(cudaMemcpy(device, host.data(), bytes, cudaMemcpyHostToDevice), "upload");

  frugal_context* context = nullptr;
  check(frugal_context_create(&context), "context");
  check(frugal_context_discover_plugins(context, 0, nullptr), "discover");
  frugal_options* options = nullptr;
  check(frugal_options_create(&options), "options");
  check(frugal_options_set_string(options, "root", dir.c_str()), "root");
  frugal_store* store = nullptr;
  check(frugal_store_create(context, "fs", options, &store), "store");
  frugal_ckpt_engine* engine = nullptr;
  check(frugal_ckpt_engine_create(store, nullptr, &engine), "engine");

  int64_t shape[] = {count};
  frugal_tensor view{};
  view.struct_size = sizeof(view);
  view.data = device;
  view.dtype = FRUGAL_DTYPE_FLOAT32;
  view.ndim = 1;
  view.device = {FRUGAL_DEVICE_CUDA, 0};
  view.shape = shape;
  check(frugal_ckpt_register(engine, "weights", &view, 0), "register");

  frugal_ckpt_save_args args{};
  args.struct_size = sizeof(args);
  args.kind = FRUGAL_CKPT_HEARTBEAT;
  args.step = 1;
  frugal_ckpt_save_result result{};
  result.struct_size = sizeof(result);
  check(frugal_ckpt_save(engine, &args, &result), "save");
  check(frugal_ckpt_wait(engine, nullptr), "wait");

  // Baseline: a plain device-to-pinned-host copy of the same bytes.
  void* pinned = nullptr;
  check_cuda(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault), "cudaHostAlloc");
  const auto start = std::chrono::steady_clock::now();
  check_cuda(cudaMemcpy(pinned, device, bytes, cudaMemcpyDeviceToHost), "baseline copy");
  const double baseline = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  check_cuda(cudaMemset(device, 0, bytes), "zero");
  check(frugal_ckpt_restore(engine, nullptr, FRUGAL_CKPT_ALL_KINDS, nullptr, 0, nullptr, nullptr), "restore");
  std::vector<float> back(static_cast<size_t>(count));
  check_cuda(cudaMemcpy(back.data(), device, bytes, cudaMemcpyDeviceToHost), "download");
  const bool same = std::memcmp(back.data(), host.data(), bytes) == 0;

  std::printf(
      "ckpt_cuda bytes=%zu restore_identical=%d snapshot_s=%.6f cudaMemcpy_s=%.6f snapshot_GBps=%.2f "
      "cudaMemcpy_GBps=%.2f\n",
      bytes, same ? 1 : 0, result.snapshot_seconds, baseline,
      static_cast<double>(bytes) / result.snapshot_seconds / 1e9, static_cast<double>(bytes) / baseline / 1e9);
  frugal_ckpt_engine_destroy(engine);
  frugal_store_destroy(store);
  frugal_options_destroy(options);
  frugal_context_destroy(context);
  cudaFreeHost(pinned);
  cudaFree(device);
  return same ? 0 : 1;
}
