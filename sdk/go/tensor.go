package frugal

import (
	"fmt"
	"unsafe"
)

// Tensor describes compact row-major host memory with an element type and
// a shape, for passing to one libfrugal call. It does not own the memory:
// it refers to a Go slice (made by Float32s, Int64s, ...) or to C memory
// (CTensor.Tensor).
//
// Pointer rule: a Tensor over a Go slice is handed to C only for the
// duration of the call it is passed to; libfrugal never keeps it. Anything
// that must outlive a call (the checkpoint engine's registered state) needs
// C memory: use CTensor for that.
//
// A Tensor is a description and is checked by the call that uses it: a
// shape whose element count does not match the slice, an unknown dtype or
// more than 32 dimensions fails that call with CodeInvalidArgument naming
// the tensor. The zero Tensor means "not given" where a tensor is optional.
//
// Thread safety: a Tensor is a plain value; the usual Go rules for sharing
// the slice behind it apply (no writes while libfrugal reads it).
type Tensor struct {
	dtype DType
	shape []int64
	// data is the first element (nil for an empty slice). Holding it keeps
	// a Go backing array alive.
	data  unsafe.Pointer
	bytes int
}

// MaxNDim is the most dimensions a tensor may have (FRUGAL_TENSOR_MAX_NDIM).
const MaxNDim = 32

// newTensor records a slice given as its first element and byte length.
// No shape means one dimension of the slice's length.
func newTensor(dtype DType, first unsafe.Pointer, elems, elemSize int, shape []int64) Tensor {
	if len(shape) == 0 {
		shape = []int64{int64(elems)}
	} else {
		shape = append([]int64(nil), shape...)
	}
	if elems == 0 {
		first = nil
	}
	return Tensor{dtype: dtype, shape: shape, data: first, bytes: elems * elemSize}
}

// firstOf returns the address of a slice's first element, nil when empty.
func firstOf[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// Float32s views data as a float32 tensor of the given shape (none: 1-D).
func Float32s(data []float32, shape ...int64) Tensor {
	return newTensor(DTypeFloat32, firstOf(data), len(data), 4, shape)
}

// Float64s views data as a float64 tensor.
func Float64s(data []float64, shape ...int64) Tensor {
	return newTensor(DTypeFloat64, firstOf(data), len(data), 8, shape)
}

// Int32s views data as an int32 tensor.
func Int32s(data []int32, shape ...int64) Tensor {
	return newTensor(DTypeInt32, firstOf(data), len(data), 4, shape)
}

// Int64s views data as an int64 tensor.
func Int64s(data []int64, shape ...int64) Tensor {
	return newTensor(DTypeInt64, firstOf(data), len(data), 8, shape)
}

// Int8s views data as an int8 tensor.
func Int8s(data []int8, shape ...int64) Tensor {
	return newTensor(DTypeInt8, firstOf(data), len(data), 1, shape)
}

// Uint8s views data as a uint8 tensor.
func Uint8s(data []uint8, shape ...int64) Tensor {
	return newTensor(DTypeUint8, firstOf(data), len(data), 1, shape)
}

// Bytes views data as a tensor of a one-byte dtype given explicitly:
// FP8 codes (DTypeFloat8E4M3FN, DTypeFloat8E5M2, DTypeFloat8E8M0),
// DTypeInt8, DTypeUint8 or DTypeBool.
func Bytes(dtype DType, data []byte, shape ...int64) Tensor {
	return newTensor(dtype, firstOf(data), len(data), 1, shape)
}

// Halves views data as a tensor of a two-byte dtype given explicitly:
// DTypeBFloat16 or DTypeFloat16 (raw bits), or DTypeInt16.
func Halves(dtype DType, data []uint16, shape ...int64) Tensor {
	return newTensor(dtype, firstOf(data), len(data), 2, shape)
}

// DType returns the element type.
func (t Tensor) DType() DType { return t.dtype }

// Shape returns a copy of the shape.
func (t Tensor) Shape() []int64 { return append([]int64(nil), t.shape...) }

// given reports whether t is a tensor rather than the zero Tensor.
func (t Tensor) given() bool { return t.dtype != 0 }

// elements is the product of the shape (assumes check passed).
func (t Tensor) elements() int64 {
	n := int64(1)
	for _, d := range t.shape {
		n *= d
	}
	return n
}

// check verifies the description against its memory; role names the
// tensor in the message ("input", "plan.weights", ...).
func (t Tensor) check(role string) error {
	bits := t.dtype.Bits()
	if bits == 0 {
		return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: unknown dtype %d", role, int32(t.dtype))}
	}
	if len(t.shape) > MaxNDim {
		return &Error{Code: CodeInvalidArgument,
			Message: fmt.Sprintf("%s: %d dimensions, at most %d", role, len(t.shape), MaxNDim)}
	}
	const limit = int64(1) << 62
	n := int64(1)
	for _, d := range t.shape {
		if d < 0 {
			return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: negative extent in shape %v", role, t.shape)}
		}
		if d != 0 && n > limit/d {
			return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: shape %v is too large", role, t.shape)}
		}
		n *= d
	}
	if need := n * int64(bits) / 8; need != int64(t.bytes) {
		return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: shape %v of %s needs %d bytes, its memory holds %d",
			role, t.shape, t.dtype, need, t.bytes)}
	}
	return nil
}

// wrongDType panics like a failed type assertion: reading a tensor as
// another element type is a programming error, not a runtime condition.
func (t Tensor) wrongDType(want string) {
	panic(fmt.Sprintf("frugal: tensor of dtype %s read as %s", t.dtype, want))
}

// view returns the memory as a slice of n elements of E.
func view[E any](t Tensor, elemSize int) []E {
	if t.data == nil {
		return nil
	}
	return unsafe.Slice((*E)(t.data), t.bytes/elemSize)
}

// Float32s returns the elements of a float32 tensor, sharing its memory
// (the Go slice it was made from, or C memory for a CTensor: then valid
// only until the CTensor is closed). Panics for another dtype.
func (t Tensor) Float32s() []float32 {
	if t.dtype != DTypeFloat32 {
		t.wrongDType("float32")
	}
	return view[float32](t, 4)
}

// Float64s returns the elements of a float64 tensor, sharing its memory.
// Panics for another dtype.
func (t Tensor) Float64s() []float64 {
	if t.dtype != DTypeFloat64 {
		t.wrongDType("float64")
	}
	return view[float64](t, 8)
}

// Int32s returns the elements of an int32 tensor, sharing its memory.
// Panics for another dtype.
func (t Tensor) Int32s() []int32 {
	if t.dtype != DTypeInt32 {
		t.wrongDType("int32")
	}
	return view[int32](t, 4)
}

// Int64s returns the elements of an int64 tensor, sharing its memory.
// Panics for another dtype.
func (t Tensor) Int64s() []int64 {
	if t.dtype != DTypeInt64 {
		t.wrongDType("int64")
	}
	return view[int64](t, 8)
}

// Bytes returns the raw bytes of a tensor of any dtype, sharing its memory.
func (t Tensor) Bytes() []byte { return view[byte](t, 1) }
