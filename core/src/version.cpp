// Runtime version queries.
#include "frugal/context.h"

extern "C" {

FRUGAL_API uint32_t frugal_abi_version(void) { return FRUGAL_ABI_VERSION; }

FRUGAL_API const char* frugal_version_string(void) { return FRUGAL_VERSION_STRING; }

}  // extern "C"
