package frugal

/*
#include "frugal/managed_tensor.h"
*/
import "C"

// DType is a tensor element type (frugal_dtype_values in frugal/tensor.h).
type DType int32

// Element types, as numbered in frugal/tensor.h.
const (
	DTypeFloat32      DType = 1
	DTypeFloat16      DType = 2 // IEEE binary16, carried in Go as uint16 bits
	DTypeBFloat16     DType = 3 // carried in Go as uint16 bits
	DTypeFloat64      DType = 4
	DTypeFloat8E4M3FN DType = 5 // OCP E4M3, max 448; one byte per element
	DTypeFloat8E5M2   DType = 6 // OCP E5M2, max 57344; one byte per element
	DTypeFloat8E8M0   DType = 7 // OCP E8M0 exponent-only scales (MX)
	DTypeInt8         DType = 8
	DTypeUint8        DType = 9
	DTypeInt16        DType = 10
	DTypeInt32        DType = 11
	DTypeInt64        DType = 12
	DTypeBool         DType = 13 // one byte per element, 0 or 1
)

// Bits returns the bits per element, or 0 for a value libfrugal does not
// know. Thread-safe.
func (d DType) Bits() int { return int(C.frugal_dtype_bits(C.int32_t(d))) }

// String returns libfrugal's stable name ("float32", "float8_e4m3fn", ...)
// or "unknown".
func (d DType) String() string { return C.GoString(C.frugal_dtype_name(C.int32_t(d))) }
