// CUDA presence queries for a build without the CUDA toolkit.
#include "frugal/context.h"

extern "C" {

FRUGAL_API int32_t frugal_cuda_device_count(void) { return 0; }

FRUGAL_API int32_t frugal_built_with_cuda(void) { return 0; }

}  // extern "C"
