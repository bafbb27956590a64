// The CUDA path in a build without CUDA: every call names what is missing.
#include "cuda/cuda_ops.hpp"

namespace frugal::router::cuda {

namespace {
[[noreturn]] void no_cuda(const char* what) {
  throw UnsupportedDevice(std::string(what) + " on a CUDA tensor: this router_moe was built without CUDA");
}
}  // namespace

bool built_with_cuda() noexcept { return false; }
void route(const RouteRequest&, const DevicePlan&) { no_cuda("route"); }
void permute(const int64_t*, int64_t, const void*, int64_t, void*, int64_t, int64_t, Element, void*) {
  no_cuda("permute");
}
void combine(const int64_t*, const int64_t*, const float*, int64_t, const void*, int64_t, void*, int64_t, int64_t,
             Element, void*) {
  no_cuda("combine");
}

}  // namespace frugal::router::cuda
