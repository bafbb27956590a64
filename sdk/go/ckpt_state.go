package frugal

/*
#include <stdint.h>
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"runtime/cgo"
	"unsafe"
)

// CkptStateMaxSize mirrors FRUGAL_CKPT_STATE_MAX_SIZE: the most bytes one
// registered state may export (256 MiB); a larger export fails the save.
const CkptStateMaxSize = uint64(C.FRUGAL_CKPT_STATE_MAX_SIZE)

// borrows counts the checkpoint engines an object is registered with: the
// engine calls the object's export and import until it is unregistered, so
// the object's Close refuses while the count is above zero (as a
// registered CTensor's does).
type borrows struct{ engines int }

func (b *borrows) closeRefusal(what string) error {
	if b.engines == 0 {
		return nil
	}
	return &Error{Code: CodeFailedPrecondition, Message: fmt.Sprintf(
		"%s is registered with %d checkpoint engine(s); unregister it or close them first", what, b.engines)}
}

// hostState is one RegisterState registration, reached from C through a
// cgo handle (the engine keeps the handle's value as user_data).
type hostState struct {
	name    string
	export  func() ([]byte, error)
	restore func([]byte) error
	// pending is the export of a size query, copied by the call after it.
	pending []byte
	handle  cgo.Handle
}

// stateError is a frugal error for the engine to report (it destroys it):
// an *Error keeps its code, anything else is INTERNAL; both name the state.
func stateError(name, action string, err error) *C.frugal_error {
	code := CodeInternal
	message := err.Error()
	if fe, ok := err.(*Error); ok {
		code, message = fe.Code, fe.Message
	}
	text := C.CString(fmt.Sprintf("state '%s': %s failed: %s", name, action, message))
	defer C.free(unsafe.Pointer(text))
	return C.frugal_error_create(C.int32_t(code), text)
}

// guarded runs call, turning a panic into an error: a Go panic must not
// unwind through the engine's C frames.
func guarded(call func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panicked: %v", p)
		}
	}()
	return call()
}

func (s *hostState) exportInto(buffer unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.frugal_error {
	data := s.pending
	s.pending = nil
	if data == nil || buffer == nil {
		if err := guarded(func() (e error) { data, e = s.export(); return e }); err != nil {
			return stateError(s.name, "export", err)
		}
	}
	*size = C.size_t(len(data))
	if buffer == nil {
		s.pending = data
		if s.pending == nil {
			s.pending = []byte{}
		}
		return nil
	}
	if int(capacity) < len(data) {
		return stateError(s.name, "export", &Error{Code: CodeOutOfRange,
			Message: fmt.Sprintf("%d bytes do not fit in %d", len(data), int(capacity))})
	}
	if len(data) > 0 {
		copy(unsafe.Slice((*byte)(buffer), len(data)), data)
	}
	return nil
}

func (s *hostState) importFrom(data unsafe.Pointer, size C.size_t) *C.frugal_error {
	blob := C.GoBytes(data, C.int(size))
	if err := guarded(func() error { return s.restore(blob) }); err != nil {
		return stateError(s.name, "import", err)
	}
	return nil
}

// registerObject registers a core object (router, quantizer, scheduler,
// loss scaler) through call and keeps it referenced until Unregister/Close.
func (e *CkptEngine) registerObject(name string, b *borrows, object any, call func(cname *C.char) *C.frugal_error) error {
	// The engine references the object from here on; runtime.KeepAlive
	// also keeps it reachable until the call that hands its pointer over.
	defer runtime.KeepAlive(object)
	if err := e.withName(name, call); err != nil {
		return err
	}
	b.engines++
	e.states[name] = registeredState{object: object, borrows: b}
	return nil
}

// RegisterRouter saves and restores r's state (its bias, for one) under
// name with the tensors of the kinds in `kinds` (0: all). The engine keeps
// r referenced, and r.Close refuses, until Unregister or Close. r must not
// be used from another goroutine while Save or Restore runs.
func (e *CkptEngine) RegisterRouter(name string, r *Router, kinds CkptKind) error {
	live := r != nil && r.routerHandle != nil && r.ptr != nil
	if !live {
		return closedArgument("router", name)
	}
	return e.registerObject(name, &r.borrows, r, func(cname *C.char) *C.frugal_error {
		return C.frugal_ckpt_register_router(e.ptr, cname, r.ptr, C.uint32_t(kinds))
	})
}

// RegisterQuantizer is RegisterRouter for a quantizer (its scale history).
func (e *CkptEngine) RegisterQuantizer(name string, q *Quantizer, kinds CkptKind) error {
	live := q != nil && q.quantizerHandle != nil && q.ptr != nil
	if !live {
		return closedArgument("quantizer", name)
	}
	return e.registerObject(name, &q.borrows, q, func(cname *C.char) *C.frugal_error {
		return C.frugal_ckpt_register_quantizer(e.ptr, cname, q.ptr, C.uint32_t(kinds))
	})
}

// RegisterScheduler is RegisterRouter for a scheduler; each save's export
// counts as a checkpoint in its ledger.
func (e *CkptEngine) RegisterScheduler(name string, s *Scheduler, kinds CkptKind) error {
	live := s != nil && s.schedulerHandle != nil && s.ptr != nil
	if !live {
		return closedArgument("scheduler", name)
	}
	return e.registerObject(name, &s.borrows, s, func(cname *C.char) *C.frugal_error {
		return C.frugal_ckpt_register_scheduler(e.ptr, cname, s.ptr, C.uint32_t(kinds))
	})
}

// RegisterLossScaler is RegisterRouter for a loss scaler (scale and counters).
func (e *CkptEngine) RegisterLossScaler(name string, s *LossScaler, kinds CkptKind) error {
	live := s != nil && s.lossScalerHandle != nil && s.ptr != nil
	if !live {
		return closedArgument("loss scaler", name)
	}
	return e.registerObject(name, &s.borrows, s, func(cname *C.char) *C.frugal_error {
		return C.frugal_ckpt_register_loss_scaler(e.ptr, cname, s.ptr, C.uint32_t(kinds))
	})
}

// RegisterState saves Go state as bytes under name: export runs on every
// save of the kinds in `kinds` (0: all), restore on every Restore that
// holds the state, both on the goroutine calling Save or Restore and
// inside that call; neither may call this engine (it is locked). An error
// or a panic in either fails that save or restore with an *Error naming the
// state (an *Error keeps its code; anything else is CodeInternal). A failed
// restore cannot roll back what was restored before it: it should leave
// its state as it was. At most CkptStateMaxSize bytes.
func (e *CkptEngine) RegisterState(name string, export func() ([]byte, error), restore func([]byte) error,
	kinds CkptKind) error {
	if export == nil || restore == nil {
		return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("state '%s': export and restore must not be nil", name)}
	}
	state := &hostState{name: name, export: export, restore: restore}
	state.handle = cgo.NewHandle(state)
	err := e.withName(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_go_ckpt_register_state(e.ptr, cname, C.uintptr_t(state.handle), C.uint32_t(kinds))
	})
	if err != nil {
		state.handle.Delete()
		return err
	}
	e.states[name] = registeredState{object: state}
	return nil
}

// registeredState is what the engine keeps referenced for one state.
type registeredState struct {
	object  any
	borrows *borrows
}

// release ends the registration on the Go side, once the core let it go.
func (r registeredState) release() {
	if r.borrows != nil {
		r.borrows.engines--
	}
	if s, ok := r.object.(*hostState); ok {
		s.handle.Delete()
	}
}

func closedArgument(what, name string) error {
	return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s for state '%s' is closed or nil", what, name)}
}
