// CUDA presence queries, built when the CUDA toolkit was found. A machine
// without a driver or a device answers 0, never an error.
#include <cuda_runtime_api.h>

#include "frugal/context.h"

extern "C" {

FRUGAL_API int32_t frugal_cuda_device_count(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}

FRUGAL_API int32_t frugal_built_with_cuda(void) { return 1; }

}  // extern "C"
