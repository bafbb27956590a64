package frugal

/*
#include <stdlib.h>
#include "frugal/options.h"
*/
import "C"

import "unsafe"

// Options is a set of typed named values configuring a strategy.
//
// Ownership: created by NewOptions, released by Close. Strategies read it
// only during the call that takes it (NewSchedule, NewPacker), so it may be
// closed or reused right after.
//
// Thread safety: setters and Close need exclusive access; do not share one
// Options being written between goroutines.
type Options struct {
	ptr *C.frugal_options
}

// NewOptions creates an empty options object.
func NewOptions() (*Options, error) {
	var out *C.frugal_options
	if err := takeError(C.frugal_options_create(&out)); err != nil {
		return nil, err
	}
	return &Options{ptr: out}, nil
}

// Close destroys the options. Calling it again does nothing.
func (o *Options) Close() error {
	if o.ptr != nil {
		C.frugal_options_destroy(o.ptr)
		o.ptr = nil
	}
	return nil
}

// set runs one setter with the name converted to a C string that is freed
// before returning (libfrugal copies names and values).
func (o *Options) set(name string, call func(cname *C.char) *C.frugal_error) error {
	if o.ptr == nil {
		return closedError("options")
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	return takeError(call(cname))
}

// SetInt sets name to an integer value. Names are 1..128 bytes of
// [A-Za-z0-9_.-]; others fail with CodeInvalidArgument.
func (o *Options) SetInt(name string, value int64) error {
	return o.set(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_options_set_int(o.ptr, cname, C.int64_t(value))
	})
}

// SetFloat sets name to a floating-point value.
func (o *Options) SetFloat(name string, value float64) error {
	return o.set(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_options_set_double(o.ptr, cname, C.double(value))
	})
}

// SetBool sets name to a boolean value.
func (o *Options) SetBool(name string, value bool) error {
	var v C.int32_t
	if value {
		v = 1
	}
	return o.set(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_options_set_bool(o.ptr, cname, v)
	})
}

// SetString sets name to a string value (copied by libfrugal).
func (o *Options) SetString(name, value string) error {
	cvalue := C.CString(value)
	defer C.free(unsafe.Pointer(cvalue))
	return o.set(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_options_set_string(o.ptr, cname, cvalue)
	})
}

// optionsArg is the C object for a call taking optional options: nil
// Options mean defaults, while closed ones are refused rather than
// silently read as defaults.
func optionsArg(o *Options) (*C.frugal_options, error) {
	if o == nil {
		return nil, nil
	}
	if o.ptr == nil {
		return nil, closedError("options")
	}
	return o.ptr, nil
}

// strategyArgs holds the C arguments every *_create call takes: the
// context, the strategy name (C memory, freed by free) and the options.
type strategyArgs struct {
	ctx  *C.frugal_context
	name *C.char
	opts *C.frugal_options
}

// newStrategyArgs checks ctx and opts are open and copies name into C
// memory; the caller defers free.
func newStrategyArgs(ctx *Context, name string, opts *Options) (strategyArgs, error) {
	if ctx == nil || ctx.ptr == nil {
		return strategyArgs{}, closedError("context")
	}
	copts, err := optionsArg(opts)
	if err != nil {
		return strategyArgs{}, err
	}
	return strategyArgs{ctx: ctx.ptr, name: C.CString(name), opts: copts}, nil
}

func (a strategyArgs) free() { C.free(unsafe.Pointer(a.name)) }
