// The cuBLASLt entry points the GEMM uses, as a table of function pointers.
//
// By default the library is opened at the first GEMM (dlopen of
// libcublasLt.so.<major>, then the toolkit's library directory the build
// saw), so the plugin itself loads on machines without cuBLAS and does not
// pay cuBLASLt's load time unless a GEMM runs. A build with
// FRUGAL_QUANT_CUBLASLT_LINKED links it instead and fills the table from the
// linked symbols. Internal to cuda/.
#pragma once

#include <cublasLt.h>

#include <string>

namespace frugal::quant::cuda::detail {

struct LtApi {
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtDestroy) destroy = nullptr;
  decltype(&cublasLtGetVersion) get_version = nullptr;
  decltype(&cublasLtGetStatusName) status_name = nullptr;  // these two may be null when opened at run time
  decltype(&cublasLtGetStatusString) status_string = nullptr;
  decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
};

// The table, loaded once (thread-safe). Throws UnsupportedDevice naming what
// is missing when cuBLASLt cannot be opened or is of another major version.
const LtApi& lt_api();

// "CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not supported)".
std::string lt_status(const LtApi& api, cublasStatus_t status);

// Throws CudaFailure("<call>: <status>") unless status is CUBLAS_STATUS_SUCCESS.
void lt_check(const LtApi& api, cublasStatus_t status, const char* call);

}  // namespace frugal::quant::cuda::detail
