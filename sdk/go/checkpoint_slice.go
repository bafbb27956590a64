package frugal

/*
#include "shim.h"
*/
import "C"

import "fmt"

// CkptSlice says where the tensor a rank registers with RegisterSlice lies
// in the global tensor (frugal_ckpt_slice, ABI 2.2): the box of
// GlobalShape that starts at Offsets and has the tensor's own shape, or,
// with Replicated, the whole tensor, held by every rank.
//
// Every rank registers the same names, dtypes and global shapes, and the
// slices of all ranks must cover each tensor without overlap (a replicated
// tensor covers it alone), else the save that finds them otherwise commits
// on no rank.
type CkptSlice struct {
	// GlobalShape holds one extent per dimension of the registered tensor.
	GlobalShape []int64
	// Offsets holds one offset per dimension; nil (or empty) means zeros.
	Offsets []int64
	// Replicated says every rank holds the whole tensor (its shape is
	// GlobalShape, Offsets empty): saved once, by rank 0, and restored on
	// every rank.
	Replicated bool
}

// RegisterSlice adds this rank's slice of the global tensor name to the
// checkpoints of the kinds in mask `kinds` (0: all), on an engine created
// with a comm option (NewCkptEngine). The engine reads and writes t's
// memory until Unregister or Close, as for Register; slice is read during
// the call only (libfrugal copies it).
//
// Errors: CodeInvalidArgument from the binding when GlobalShape (or a
// non-empty Offsets) does not have one value per dimension of t, since
// libfrugal reads that many; from libfrugal, CodeFailedPrecondition on an
// engine without a comm, CodeOutOfRange for a box outside GlobalShape,
// CodeInvalidArgument for a replicated tensor that is not whole,
// CodeAlreadyExists for a name taken.
func (e *CkptEngine) RegisterSlice(name string, t *CTensor, slice CkptSlice, kinds CkptKind) error {
	if t == nil || t.ptr == nil {
		return &Error{Code: CodeInvalidArgument, Message: "tensor '" + name + "' is closed or nil"}
	}
	ndim := len(t.Tensor().shape)
	if err := checkSliceLen(name, "GlobalShape", slice.GlobalShape, ndim); err != nil {
		return err
	}
	if len(slice.Offsets) != 0 {
		if err := checkSliceLen(name, "Offsets", slice.Offsets, ndim); err != nil {
			return err
		}
	}
	replicated := C.int32_t(0)
	if slice.Replicated {
		replicated = 1
	}
	err := e.withName(name, func(cname *C.char) *C.frugal_error {
		// The arrays hold no Go pointers and cross as direct arguments,
		// read during the call only; the shim builds the slice struct.
		return C.frugal_go_ckpt_register_slice(e.ptr, cname, t.cView(), C.int32_t(ndim),
			(*C.int64_t)(firstOf(slice.GlobalShape)), (*C.int64_t)(firstOf(slice.Offsets)), replicated,
			C.uint32_t(kinds))
	})
	if err != nil {
		return err
	}
	e.registered[name] = t
	t.registered++
	return nil
}

// checkSliceLen refuses a slice array without one value per dimension.
func checkSliceLen(name, field string, values []int64, ndim int) error {
	if len(values) == ndim {
		return nil
	}
	return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf(
		"checkpoint slice '%s': %s has %d values but the tensor has %d dimensions", name, field, len(values), ndim)}
}
