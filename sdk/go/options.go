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
// Options being written between goroutines. Getters (Get*, Type, Count,
// Entry) may run concurrently with each other.
type Options struct {
	_ noCopy
	*optionsHandle
}

// optionsHandle owns the C object; every copy of a
// Options shares it (handle.go).
type optionsHandle struct {
	ptr *C.frugal_options
}

// NewOptions creates an empty options object.
func NewOptions() (*Options, error) {
	var out *C.frugal_options
	if err := takeError(C.frugal_options_create(&out)); err != nil {
		return nil, err
	}
	return &Options{optionsHandle: &optionsHandle{ptr: out}}, nil
}

// Close destroys the options. Calling it again does nothing.
func (o *Options) Close() error {
	if o.ptr != nil {
		C.frugal_options_destroy(o.ptr)
		o.ptr = nil
	}
	return nil
}

// set runs one setter or getter with the name converted to a C string that is freed
// before returning (libfrugal copies names and values).
func (o *Options) set(name string, call func(cname *C.char) *C.frugal_error) error {
	if o.ptr == nil {
		return closedError("options")
	}
	return withCString(name, call)
}

// withCString runs call with s as a C string freed before returning, and
// returns call's error as a Go error.
func withCString(s string, call func(cs *C.char) *C.frugal_error) error {
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	return takeError(call(cs))
}

// SetInt sets name to an integer value. Names are 1..128 bytes of
// [A-Za-z0-9_.-]; others fail with CodeInvalidArgument.
func (o *Options) SetInt(name string, value int64) error {
	return o.set(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_options_set_int(o.ptr, cname, C.int64_t(value))
	})
}

// SetDouble sets name to a double (frugal_options_set_double).
func (o *Options) SetDouble(name string, value float64) error {
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

// SetComm sets name to a communicator (ABI 2.1), held by reference: the
// options, copies of them and every strategy instance created with them
// keep the comm alive in C, so comm may be closed right after. This is how
// a comm reaches a strategy (a router's expert-parallel group, comm_nccl's
// MPI bootstrap). A nil or closed comm is CodeFailedPrecondition.
func (o *Options) SetComm(name string, comm *Comm) error {
	if comm == nil || comm.ptr == nil {
		return closedError("comm")
	}
	return o.set(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_options_set_comm(o.ptr, cname, comm.ptr)
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

// OptionType is the type of an option value (frugal_option_type_values).
type OptionType int32

// Option types, as numbered in frugal/types.h; 0 means absent.
const (
	OptionAbsent OptionType = 0
	OptionInt    OptionType = 1 // int64; may also be read as a double
	OptionDouble OptionType = 2 // double
	OptionBool   OptionType = 3
	OptionString OptionType = 4
	OptionComm   OptionType = 5 // a communicator held by reference (SetComm); ABI 2.1
)

// String returns "int", "double", "bool", "string", "comm" or "absent".
func (t OptionType) String() string {
	switch t {
	case OptionAbsent:
		return "absent"
	case OptionInt:
		return "int"
	case OptionDouble:
		return "double"
	case OptionBool:
		return "bool"
	case OptionString:
		return "string"
	case OptionComm:
		return "comm"
	}
	return "unknown"
}

// SetParsed sets name from text spelled as on a command line, whatever the
// locale: exactly "true"/"false" is a bool, a decimal integer that fits
// int64 an int, a decimal or exponent number ("inf", "nan", integers
// beyond int64) a float, anything else (a leading '+' or surrounding
// spaces included) a string.
func (o *Options) SetParsed(name, text string) error {
	ctext := C.CString(text)
	defer C.free(unsafe.Pointer(ctext))
	return o.set(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_options_set_parsed(o.ptr, cname, ctext)
	})
}

// Type returns the type of name, or OptionAbsent when it is not set (or
// the options are closed).
func (o *Options) Type(name string) OptionType {
	if o.ptr == nil {
		return OptionAbsent
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	return OptionType(C.frugal_options_type(o.ptr, cname))
}

// Count returns the number of values held (0 once closed).
func (o *Options) Count() int {
	if o.ptr == nil {
		return 0
	}
	return int(C.frugal_options_count(o.ptr))
}

// Entry returns the name and type of the value at index (insertion order;
// setting a name again keeps its position). CodeOutOfRange when index >=
// Count.
func (o *Options) Entry(index int) (string, OptionType, error) {
	if o.ptr == nil {
		return "", OptionAbsent, closedError("options")
	}
	if index < 0 {
		return "", OptionAbsent, &Error{Code: CodeOutOfRange, Message: "option index out of range"}
	}
	var name *C.char
	var typ C.int32_t
	if err := takeError(C.frugal_options_entry(o.ptr, C.size_t(index), &name, &typ)); err != nil {
		return "", OptionAbsent, err
	}
	// The name belongs to the options: copy it.
	return C.GoString(name), OptionType(typ), nil
}

// GetInt reads name as an int64, or returns def when it is absent. Another
// type is CodeInvalidArgument naming the option, its type and int.
func (o *Options) GetInt(name string, def int64) (int64, error) {
	var out C.int64_t
	err := o.set(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_options_get_int(o.ptr, cname, C.int64_t(def), &out)
	})
	return int64(out), err
}

// GetDouble reads name as a double (an int converts), or returns def when
// it is absent. Another type is CodeInvalidArgument.
func (o *Options) GetDouble(name string, def float64) (float64, error) {
	var out C.double
	err := o.set(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_options_get_double(o.ptr, cname, C.double(def), &out)
	})
	return float64(out), err
}

// GetBool reads name as a bool, or returns def when it is absent. Another
// type is CodeInvalidArgument.
func (o *Options) GetBool(name string, def bool) (bool, error) {
	var cdef, out C.int32_t
	if def {
		cdef = 1
	}
	err := o.set(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_options_get_bool(o.ptr, cname, cdef, &out)
	})
	return out != 0, err
}

// GetString reads name as a string (copied into Go), or returns def when
// it is absent. Another type is CodeInvalidArgument.
func (o *Options) GetString(name, def string) (string, error) {
	cdef := C.CString(def)
	defer C.free(unsafe.Pointer(cdef))
	var out *C.char
	err := o.set(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_options_get_string(o.ptr, cname, cdef, &out)
	})
	if err != nil {
		return "", err
	}
	return C.GoString(out), nil
}
