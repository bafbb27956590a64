package frugal

/*
#include "frugal/context.h"
*/
import "C"

// ABIMajor and ABIMinor are the ABI version of the headers this package
// was compiled against (FRUGAL_ABI_VERSION_*). A host compares them with
// ABIVersion, the library loaded at run time.
const (
	ABIMajor = C.FRUGAL_ABI_VERSION_MAJOR
	ABIMinor = C.FRUGAL_ABI_VERSION_MINOR
)

// ABIVersion returns the ABI version of the libfrugal loaded at run time:
// a different major means incompatible; a higher minor adds to the same
// ABI.
func ABIVersion() (major, minor uint32) {
	v := uint32(C.frugal_abi_version())
	return v >> 16 & 0xFFFF, v & 0xFFFF
}

// Version returns the release of the loaded libfrugal ("0.6.0").
func Version() string { return C.GoString(C.frugal_version_string()) }

// BuiltWithCUDA reports whether the loaded libfrugal was built with CUDA
// support. Thread-safe.
func BuiltWithCUDA() bool { return C.frugal_built_with_cuda() != 0 }

// CUDADeviceCount returns the number of usable CUDA devices: 0 without
// CUDA support, without a driver or without a device. Thread-safe.
func CUDADeviceCount() int { return int(C.frugal_cuda_device_count()) }
