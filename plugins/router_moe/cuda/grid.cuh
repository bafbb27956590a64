// Launch shapes, the index sequence and the CUB calls the plan builders
// share (dispatch.cu, expert_choice.cu). Internal to cuda/.
#pragma once

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "cuda/cuda_support.hpp"

namespace frugal::router::cuda::grid {

inline constexpr int kThreads = 256;

// Blocks of kThreads for one thread per item.
inline unsigned blocks_for(std::int64_t items) { return static_cast<unsigned>((items + kThreads - 1) / kThreads); }

__device__ __forceinline__ std::int64_t item_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// v[i] = i.
template <class T>
__global__ void iota_kernel(T* v, std::int64_t n) {
  const std::int64_t i = item_index();
  if (i < n) v[i] = static_cast<T>(i);
}

// Bits that hold every value below `values` (at least 1): the radix sorts'
// end bit.
inline int bits_for(std::int64_t values) {
  int bits = 1;
  while ((std::int64_t{1} << bits) < values) ++bits;
  return bits;
}

// CUB device calls, each run twice: first with `sizing` set, which only
// records the temp storage the largest call needs (a null temp pointer
// makes CUB compute the size and return), then on one buffer of that size.
struct Cub {
  void* temp = nullptr;
  std::size_t bytes = 0;
  bool sizing = true;
  cudaStream_t stream = nullptr;

  // A stable sort of (key, value) pairs on the key's bits [0, end_bit).
  template <class K, class V>
  void sort(const K* keys, K* keys_out, const V* values, V* values_out, std::int64_t n, int end_bit) {
    std::size_t need = sizing ? 0 : bytes;
    detail::check(cub::DeviceRadixSort::SortPairs(sizing ? nullptr : temp, need, keys, keys_out, values, values_out,
                                                  static_cast<int>(n), 0, end_bit, stream),
                  "radix sort");
    if (sizing) bytes = std::max(bytes, need);
  }

  // out[0] = 0, out[i + 1] = in[0] + ... + in[i] (integers: exact).
  template <class In, class Out>
  void prefix(const In* in, Out* out, std::int64_t n) {
    std::size_t need = sizing ? 0 : bytes;
    if (!sizing) detail::check(cudaMemsetAsync(out, 0, sizeof(Out), stream), "cudaMemsetAsync");
    detail::check(
        cub::DeviceScan::InclusiveSum(sizing ? nullptr : temp, need, in, out + 1, static_cast<int>(n), stream),
        "prefix sum");
    if (sizing) bytes = std::max(bytes, need);
  }
};

}  // namespace frugal::router::cuda::grid
