#include "cuda/cuda_support.hpp"

#include <string>

namespace frugal::router::cuda {

bool built_with_cuda() noexcept { return true; }

namespace detail {

RowLaunch row_launch(std::int64_t tokens, std::int64_t floats, const char* router, const void* kernel) {
  const auto limit =
      static_cast<std::size_t>(device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, "shared memory"));
  const auto row_bytes = static_cast<std::size_t>(floats) * sizeof(float);
  std::size_t warps = 8;
  while (warps > 1 && warps * row_bytes > limit) warps /= 2;
  if (warps * row_bytes > limit) {
    throw UnsupportedDevice(std::string(router) + " needs " + std::to_string(row_bytes) +
                            " bytes of shared memory per token; a block of this device has " + std::to_string(limit));
  }
  RowLaunch l;
  l.threads = static_cast<unsigned>(32 * warps);
  l.shared = warps * row_bytes;
  const auto per_block = static_cast<std::int64_t>(warps);
  l.blocks = static_cast<unsigned>((tokens + per_block - 1) / per_block);
  constexpr std::size_t kDefaultShared = 48 * 1024;
  if (l.shared > kDefaultShared) {
    // Always the device's limit, never this launch's size: routes on other
    // threads may set the attribute at the same time.
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(limit)),
          "cudaFuncSetAttribute");
  }
  return l;
}

}  // namespace detail
}  // namespace frugal::router::cuda
