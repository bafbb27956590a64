package frugal

/*
#include "frugal/managed_tensor.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// CTensor is a tensor whose memory libfrugal allocated in C (64-byte
// aligned, zero-filled, compact row-major), for state that C keeps a
// pointer to after a call returns: the checkpoint engine's registered
// tensors. The cgo rules forbid C to keep a pointer into Go memory, so
// such state cannot live in a Go slice; Go reads and writes it through
// slices over the C memory (Tensor().Float32s(), ...).
//
// Ownership: created by NewCTensor, released by Close. Slices obtained
// from it point into C memory and must not be used after Close. While it
// is registered with an open checkpoint engine, Close refuses with
// CodeFailedPrecondition (the engine still reads and writes the memory):
// unregister it or close the engine first.
//
// Thread safety: the memory follows the usual rules (no concurrent writes,
// nor writes while a checkpoint save or restore runs); Close must not race
// any other use.
type CTensor struct {
	_ noCopy
	*ctensorHandle
}

// ctensorHandle owns the C object; every copy of a
// CTensor shares it (handle.go).
type ctensorHandle struct {
	ptr        *C.frugal_managed_tensor
	tensor     Tensor
	registered int
}

// NewCTensor allocates a zero-filled tensor of dtype and shape (none: a
// scalar). An unknown dtype or a bad shape is CodeInvalidArgument.
func NewCTensor(dtype DType, shape ...int64) (*CTensor, error) {
	// The shape is copied by libfrugal during the call; a Go slice of
	// int64 holds no pointer, so it may cross as an argument.
	var out *C.frugal_managed_tensor
	err := takeError(C.frugal_managed_tensor_alloc(C.int32_t(dtype), C.int32_t(len(shape)),
		(*C.int64_t)(firstOf(shape)), &out))
	if err != nil {
		return nil, err
	}
	view := C.frugal_managed_tensor_view(out)
	t := Tensor{dtype: dtype, shape: append([]int64{}, shape...), data: view.data}
	t.bytes = int(t.elements()) * dtype.Bits() / 8
	return &CTensor{ctensorHandle: &ctensorHandle{ptr: out, tensor: t}}, nil
}

// Tensor returns a view of the C memory for passing to calls and for
// reading and writing it from Go (Float32s, Int64s, Bytes, ...). The view
// is valid until Close. After Close it is the zero Tensor.
func (c *CTensor) Tensor() Tensor { return c.tensor }

// Close frees the C memory. Calling it again does nothing. It fails with
// CodeFailedPrecondition, freeing nothing, while the tensor is registered
// with an open checkpoint engine.
func (c *CTensor) Close() error {
	if c.registered > 0 {
		return &Error{Code: CodeFailedPrecondition,
			Message: fmt.Sprintf("tensor is registered with %d checkpoint engine(s); unregister it or close them first", c.registered)}
	}
	if c.ptr != nil {
		C.frugal_managed_tensor_destroy(c.ptr)
		c.ptr = nil
		c.tensor = Tensor{}
	}
	return nil
}

// cView is the C view libfrugal keeps for the tensor: C memory, so the
// checkpoint engine may hold on to it.
func (c *CTensor) cView() *C.frugal_tensor {
	return (*C.frugal_tensor)(unsafe.Pointer(C.frugal_managed_tensor_view(c.ptr)))
}
