#include "cuda/cublaslt_api.hpp"

#include <string>

#include "cuda/cuda_ops.hpp"

#if !FRUGAL_QUANT_CUBLASLT_LINKED
#include <dlfcn.h>
#endif

#define FRUGAL_QUANT_STR2(x) #x
#define FRUGAL_QUANT_STR(x) FRUGAL_QUANT_STR2(x)

namespace frugal::quant::cuda::detail {
namespace {

#if FRUGAL_QUANT_CUBLASLT_LINKED

LtApi load() {
  LtApi api;
  api.create = &cublasLtCreate;
  api.destroy = &cublasLtDestroy;
  api.get_version = &cublasLtGetVersion;
  api.status_name = &cublasLtGetStatusName;
  api.status_string = &cublasLtGetStatusString;
  api.desc_create = &cublasLtMatmulDescCreate;
  api.desc_destroy = &cublasLtMatmulDescDestroy;
  api.desc_set = &cublasLtMatmulDescSetAttribute;
  api.layout_create = &cublasLtMatrixLayoutCreate;
  api.layout_destroy = &cublasLtMatrixLayoutDestroy;
  api.pref_create = &cublasLtMatmulPreferenceCreate;
  api.pref_destroy = &cublasLtMatmulPreferenceDestroy;
  api.pref_set = &cublasLtMatmulPreferenceSetAttribute;
  api.heuristic = &cublasLtMatmulAlgoGetHeuristic;
  api.matmul = &cublasLtMatmul;
  return api;
}

#else

constexpr const char* kSoname = "libcublasLt.so." FRUGAL_QUANT_STR(CUBLAS_VER_MAJOR);

std::string last_dlerror() {
  const char* why = dlerror();
  return why != nullptr ? why : "unknown error";
}

void* open_library() {
  // The library stays loaded for the life of the process: handles made from
  // it may be destroyed as late as exit.
  if (void* h = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL)) return h;
  std::string why = last_dlerror();
#ifdef FRUGAL_QUANT_CUBLASLT_DIR
  const std::string path = std::string(FRUGAL_QUANT_CUBLASLT_DIR) + "/" + kSoname;
  if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  why += "; " + last_dlerror();
#endif
  throw UnsupportedDevice(std::string("FP8 GEMM on CUDA needs cuBLASLt (") + kSoname +
                          "), which could not be loaded: " + why);
}

template <class Fn>
void bind(void* library, Fn& slot, const char* name, bool required) {
  void* symbol = dlsym(library, name);
  if (symbol == nullptr && required) {
    throw UnsupportedDevice(std::string("FP8 GEMM on CUDA: cuBLASLt (") + kSoname + ") has no " + name);
  }
  slot = reinterpret_cast<Fn>(symbol);
}

LtApi load() {
  void* library = open_library();
  LtApi api;
  bind(library, api.create, "cublasLtCreate", true);
  bind(library, api.destroy, "cublasLtDestroy", true);
  bind(library, api.get_version, "cublasLtGetVersion", true);
  bind(library, api.status_name, "cublasLtGetStatusName", false);
  bind(library, api.status_string, "cublasLtGetStatusString", false);
  bind(library, api.desc_create, "cublasLtMatmulDescCreate", true);
  bind(library, api.desc_destroy, "cublasLtMatmulDescDestroy", true);
  bind(library, api.desc_set, "cublasLtMatmulDescSetAttribute", true);
  bind(library, api.layout_create, "cublasLtMatrixLayoutCreate", true);
  bind(library, api.layout_destroy, "cublasLtMatrixLayoutDestroy", true);
  bind(library, api.pref_create, "cublasLtMatmulPreferenceCreate", true);
  bind(library, api.pref_destroy, "cublasLtMatmulPreferenceDestroy", true);
  bind(library, api.pref_set, "cublasLtMatmulPreferenceSetAttribute", true);
  bind(library, api.heuristic, "cublasLtMatmulAlgoGetHeuristic", true);
  bind(library, api.matmul, "cublasLtMatmul", true);
  // The structs and enums above are the headers' major version's.
  const std::size_t version = api.get_version();
  if (version / 10000 != CUBLAS_VER_MAJOR) {
    throw UnsupportedDevice(std::string("FP8 GEMM on CUDA: the loaded cuBLASLt is version ") + std::to_string(version) +
                            ", this build needs major version " + FRUGAL_QUANT_STR(CUBLAS_VER_MAJOR));
  }
  return api;
}

#endif

}  // namespace

const LtApi& lt_api() {
  // Initialised once; a failed load throws and is tried again by the next call.
  static const LtApi api = load();
  return api;
}

std::string lt_status(const LtApi& api, cublasStatus_t status) {
  const char* name = api.status_name != nullptr ? api.status_name(status) : nullptr;
  std::string text = name != nullptr ? std::string(name) : "cuBLAS status " + std::to_string(static_cast<int>(status));
  if (api.status_string != nullptr) {
    if (const char* s = api.status_string(status)) text += std::string(" (") + s + ")";
  }
  return text;
}

void lt_check(const LtApi& api, cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw CudaFailure(std::string(call) + ": " + lt_status(api, status));
}

}  // namespace frugal::quant::cuda::detail
