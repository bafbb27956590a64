package frugal

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"
)

// DeviceType is where tensor memory lives (frugal_device_type_values; the
// same numbers as DLPack's DLDeviceType for these three).
type DeviceType int32

// Device types, as numbered in frugal/tensor.h.
const (
	DeviceCPU        DeviceType = 1 // ordinary host memory
	DeviceCUDA       DeviceType = 2 // CUDA device memory: not readable from Go
	DeviceCUDAPinned DeviceType = 3 // page-locked host memory
)

// ManagedTensor is a tensor that owns its memory, or borrows it with a
// release function: the unit libfrugal exchanges with other C libraries
// and frameworks through DLPack, without copying. Export hands the
// ownership to a DLPack capsule (a C DLManagedTensor or
// DLManagedTensorVersioned, passed around as an unsafe.Pointer); import
// takes the ownership of one.
//
// Only C memory may be exported: memory libfrugal allocated
// (NewManagedTensor, CTensor.IntoManaged) or C memory another library owns
// (WrapCMemory). Never a Go slice: the consumer keeps the pointer after
// the call, which the cgo rules forbid for Go memory (Go 1.19 cannot pin).
//
// Ownership: released by Close, or consumed by ToDLPack/ToDLPackVersioned
// (after which it behaves as closed). A capsule is released by its
// consumer calling its deleter exactly once (from Go: DeleteDLPack).
//
// Thread safety: distinct managed tensors may be used from any goroutines;
// one must not be closed or exported concurrently with any other use.
type ManagedTensor struct {
	_ noCopy
	*managedTensorHandle
}

// managedTensorHandle owns the C object; every copy of a
// ManagedTensor shares it (handle.go).
type managedTensorHandle struct {
	ptr *C.frugal_managed_tensor
}

// NewManagedTensor allocates a zero-filled, compact row-major CPU tensor
// in C memory (64-byte aligned) of dtype and shape (none: a scalar).
func NewManagedTensor(dtype DType, shape ...int64) (*ManagedTensor, error) {
	var out *C.frugal_managed_tensor
	err := takeError(C.frugal_managed_tensor_alloc(C.int32_t(dtype), C.int32_t(len(shape)),
		(*C.int64_t)(firstOf(shape)), &out))
	if err != nil {
		return nil, err
	}
	return &ManagedTensor{managedTensorHandle: &managedTensorHandle{ptr: out}}, nil
}

// WrapCMemory makes a managed tensor over C memory the caller owns:
// compact row-major CPU memory of dtype and shape at data. data must be C
// memory (malloc, another C library's buffer, CTensor.Data) and never Go
// memory: libfrugal and whoever the tensor is exported to keep the
// pointer. release (nil: nothing to release) runs exactly once, on
// whichever thread destroys the last owner (Close, or a capsule's
// deleter), and must not panic; it reaches C as a runtime/cgo handle. On
// failure release is not called.
func WrapCMemory(data unsafe.Pointer, dtype DType, shape []int64, release func()) (*ManagedTensor, error) {
	var h cgo.Handle
	var hasRelease C.int32_t
	if release != nil {
		h = cgo.NewHandle(release)
		hasRelease = 1
	}
	var out *C.frugal_managed_tensor
	// The shape is copied during the call; data is C memory by contract.
	err := takeError(C.frugal_go_managed_wrap(C.int32_t(dtype), C.int32_t(len(shape)), (*C.int64_t)(firstOf(shape)),
		data, hasRelease, C.uintptr_t(h), &out))
	if err != nil {
		if release != nil {
			h.Delete()
		}
		return nil, err
	}
	return &ManagedTensor{managedTensorHandle: &managedTensorHandle{ptr: out}}, nil
}

// IntoManaged moves c's memory into a managed tensor, without copying, so
// that it can be exported; c is closed afterwards. A tensor registered
// with an open checkpoint engine is refused with CodeFailedPrecondition.
func (c *CTensor) IntoManaged() (*ManagedTensor, error) {
	if c.ptr == nil {
		return nil, closedError("tensor")
	}
	if c.registered > 0 {
		return nil, &Error{Code: CodeFailedPrecondition,
			Message: "tensor is registered with a checkpoint engine; unregister it first"}
	}
	m := &ManagedTensor{managedTensorHandle: &managedTensorHandle{ptr: c.ptr}}
	c.ptr = nil
	c.tensor = Tensor{}
	return m, nil
}

// Data returns the address of the first element of c's C memory (nil for
// an empty tensor), valid until Close: for WrapCMemory and for C code.
func (c *CTensor) Data() unsafe.Pointer { return c.tensor.data }

// FromDLPackVersioned takes the ownership of a DLManagedTensorVersioned
// (capsule: C memory, from another library or ToDLPackVersioned) in every
// case: on success the managed tensor calls its deleter when closed; on
// failure the deleter has already run. The data is not copied. Another
// DLPack major, lanes != 1, a dtype frugal lacks or a device other than
// CPU, CUDA or CUDA host are CodeUnsupported; a bad shape is
// CodeInvalidArgument. A READ_ONLY flag is kept (IsReadOnly).
func FromDLPackVersioned(capsule unsafe.Pointer) (*ManagedTensor, error) {
	var out *C.frugal_managed_tensor
	err := takeError(C.frugal_managed_tensor_from_dlpack_versioned(
		(*C.frugal_dlpack_managed_tensor_versioned)(capsule), &out))
	if err != nil {
		return nil, err
	}
	return &ManagedTensor{managedTensorHandle: &managedTensorHandle{ptr: out}}, nil
}

// FromDLPack is FromDLPackVersioned for the legacy DLManagedTensor: no
// version check, and the result is never read-only.
func FromDLPack(capsule unsafe.Pointer) (*ManagedTensor, error) {
	var out *C.frugal_managed_tensor
	err := takeError(C.frugal_managed_tensor_from_dlpack((*C.frugal_dlpack_managed_tensor)(capsule), &out))
	if err != nil {
		return nil, err
	}
	return &ManagedTensor{managedTensorHandle: &managedTensorHandle{ptr: out}}, nil
}

// ToDLPackVersioned moves m into a new DLManagedTensorVersioned capsule
// (C memory allocated by libfrugal) and returns it. On success m is
// consumed: it behaves as closed, and the consumer calls the capsule's
// deleter exactly once (DeleteDLPackVersioned from Go), which releases
// the memory. On failure m is untouched. A read-only tensor is exported
// with DLPack's READ_ONLY flag.
func (m *ManagedTensor) ToDLPackVersioned() (unsafe.Pointer, error) {
	if m.ptr == nil {
		return nil, closedError("managed tensor")
	}
	var out *C.frugal_dlpack_managed_tensor_versioned
	if err := takeError(C.frugal_managed_tensor_to_dlpack_versioned(m.ptr, &out)); err != nil {
		return nil, err
	}
	m.ptr = nil
	return unsafe.Pointer(out), nil
}

// ToDLPack is ToDLPackVersioned producing the legacy DLManagedTensor. A
// read-only tensor is refused with CodeUnsupported (the legacy struct
// cannot carry the flag).
func (m *ManagedTensor) ToDLPack() (unsafe.Pointer, error) {
	if m.ptr == nil {
		return nil, closedError("managed tensor")
	}
	var out *C.frugal_dlpack_managed_tensor
	if err := takeError(C.frugal_managed_tensor_to_dlpack(m.ptr, &out)); err != nil {
		return nil, err
	}
	m.ptr = nil
	return unsafe.Pointer(out), nil
}

// DeleteDLPackVersioned releases a DLManagedTensorVersioned capsule Go
// holds and will not hand on, by calling its deleter (nil capsule or
// deleter: nothing). Call it at most once per capsule.
func DeleteDLPackVersioned(capsule unsafe.Pointer) {
	C.frugal_go_dlpack_delete_versioned((*C.frugal_dlpack_managed_tensor_versioned)(capsule))
}

// DeleteDLPack releases a legacy DLManagedTensor capsule (see
// DeleteDLPackVersioned).
func DeleteDLPack(capsule unsafe.Pointer) {
	C.frugal_go_dlpack_delete((*C.frugal_dlpack_managed_tensor)(capsule))
}

// IsReadOnly reports whether the tensor was imported read-only: writing
// through it is the caller's bug. False once closed.
func (m *ManagedTensor) IsReadOnly() bool {
	return m.ptr != nil && C.frugal_managed_tensor_is_read_only(m.ptr) != 0
}

// view is libfrugal's view of m (C memory, owned by m).
func (m *ManagedTensor) view() (*C.frugal_tensor, error) {
	if m.ptr == nil {
		return nil, closedError("managed tensor")
	}
	return C.frugal_managed_tensor_view(m.ptr), nil
}

// DType returns the element type (0 once closed).
func (m *ManagedTensor) DType() DType {
	v, err := m.view()
	if err != nil {
		return 0
	}
	return DType(v.dtype)
}

// Shape returns a copy of the shape (nil once closed).
func (m *ManagedTensor) Shape() []int64 {
	v, err := m.view()
	if err != nil {
		return nil
	}
	return cInt64s(v.shape, int(v.ndim))
}

// Strides returns a copy of the strides, in elements (nil once closed).
func (m *ManagedTensor) Strides() []int64 {
	v, err := m.view()
	if err != nil {
		return nil
	}
	return cInt64s(v.strides, int(v.ndim))
}

// Device returns where the memory lives and the CUDA ordinal (0 for host
// memory).
func (m *ManagedTensor) Device() (DeviceType, int32) {
	v, err := m.view()
	if err != nil {
		return 0, 0
	}
	return DeviceType(v.device._type), int32(v.device.id)
}

// Data returns the address of the first element (the view's data plus its
// byte offset; a device address for CUDA memory), nil once closed. It is
// C memory, valid until m is closed or exported.
func (m *ManagedTensor) Data() unsafe.Pointer {
	v, err := m.view()
	if err != nil || v.data == nil {
		return nil
	}
	return unsafe.Add(v.data, int(v.byte_offset))
}

// Tensor returns a Tensor over the memory, for libfrugal calls and typed
// access from Go (Float32s, ...), valid until m is closed or exported. The
// memory must be host memory (CPU or CUDA pinned; else CodeUnsupported)
// and compact row-major (an imported strided tensor is CodeUnsupported).
func (m *ManagedTensor) Tensor() (Tensor, error) {
	v, err := m.view()
	if err != nil {
		return Tensor{}, err
	}
	dev := DeviceType(v.device._type)
	if dev != DeviceCPU && dev != DeviceCUDAPinned {
		return Tensor{}, &Error{Code: CodeUnsupported,
			Message: fmt.Sprintf("managed tensor: device type %d memory is not readable from the host", int32(dev))}
	}
	shape := cInt64s(v.shape, int(v.ndim))
	strides := cInt64s(v.strides, int(v.ndim))
	expect := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] > 1 && strides[i] != expect {
			return Tensor{}, &Error{Code: CodeUnsupported,
				Message: fmt.Sprintf("managed tensor: strides %v of shape %v are not compact row-major", strides, shape)}
		}
		expect *= shape[i]
	}
	t := Tensor{dtype: DType(v.dtype), shape: shape, data: m.Data()}
	t.bytes = int(t.elements()) * t.dtype.Bits() / 8
	if t.bytes == 0 {
		t.data = nil
	}
	return t, nil
}

// Close destroys the managed tensor, running its release function (or an
// imported capsule's deleter) on this goroutine's thread. Calling it again,
// or after an export, does nothing.
func (m *ManagedTensor) Close() error {
	if m.ptr != nil {
		C.frugal_managed_tensor_destroy(m.ptr)
		m.ptr = nil
	}
	return nil
}
