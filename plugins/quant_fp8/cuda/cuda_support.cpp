#include "cuda/cuda_support.hpp"

#include "frugal/sdk/tensor_view.hpp"

namespace frugal::quant::cuda {

bool built_with_cuda() noexcept { return true; }

namespace detail {

// The SDK's one table of dtypes (tensor_view.hpp), under the names the .cu
// files use: that header is the plugins' host-side C++, kept out of nvcc.
std::size_t dtype_size(std::int32_t dtype) noexcept { return sdk::dtype_size(dtype); }

const char* dtype_name(std::int32_t dtype) noexcept { return sdk::dtype_name(dtype); }

}  // namespace detail
}  // namespace frugal::quant::cuda
