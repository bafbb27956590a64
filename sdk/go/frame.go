package frugal

/*
#include "shim.h"
*/
import "C"

import "unsafe"

// frameSlots is FRUGAL_GO_FRAME_TENSORS: tensors one call can carry.
const frameSlots = C.FRUGAL_GO_FRAME_TENSORS

// callFrame describes the tensors of one libfrugal call in C memory (see
// shim.h for why): Go fills dtypes and shapes, and call passes the data
// pointers as direct arguments, so no Go pointer is ever stored where C
// could keep it. One frame serves one call on one goroutine.
type callFrame struct {
	c    *C.frugal_go_frame
	data [frameSlots]unsafe.Pointer
}

// newCallFrame allocates a frame; the caller defers free.
func newCallFrame() (*callFrame, error) {
	c := C.frugal_go_frame_new()
	if c == nil {
		return nil, &Error{Code: CodeOutOfMemory, Message: "go binding: cannot allocate a call frame"}
	}
	return &callFrame{c: c}, nil
}

func (f *callFrame) free() { C.frugal_go_frame_free(f.c) }

// set checks t and describes it in slot i; the zero Tensor leaves the slot
// empty (NULL for C) unless required, which is an error naming role.
func (f *callFrame) set(i int, t Tensor, role string, required bool) error {
	if !t.given() {
		if required {
			return &Error{Code: CodeInvalidArgument, Message: role + ": a tensor is required"}
		}
		return nil
	}
	if err := t.check(role); err != nil {
		return err
	}
	ct := &f.c.tensors[i]
	ct.dtype = C.int32_t(t.dtype)
	ct.ndim = C.int32_t(len(t.shape))
	for k, d := range t.shape {
		f.c.shapes[i][k] = C.int64_t(d)
	}
	f.c.present[i] = 1
	f.data[i] = t.data
	return nil
}

// call runs op on handle with the frame's tensors. The data pointers cross
// as direct arguments, which is what the cgo rules allow for Go memory.
func (f *callFrame) call(op C.int32_t, handle unsafe.Pointer) error {
	d := &f.data
	return takeError(C.frugal_go_call(op, handle, f.c, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9],
		d[10], d[11], d[12], d[13], d[14], d[15], d[16], d[17]))
}
