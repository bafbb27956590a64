package frugal

/*
#include "frugal/error.h"
*/
import "C"

import "fmt"

// Code is a stable frugal error code (frugal_error_code_values in
// frugal/types.h). Values never change meaning between releases.
type Code int32

// The frugal error codes, as numbered in frugal/types.h.
const (
	CodeOK                 Code = 0
	CodeInvalidArgument    Code = 1
	CodeNotFound           Code = 2
	CodeAlreadyExists      Code = 3
	CodeOutOfRange         Code = 4
	CodeUnimplemented      Code = 5
	CodeUnsupported        Code = 6
	CodeABIMismatch        Code = 7
	CodePluginInvalid      Code = 8
	CodeIO                 Code = 9
	CodeDataCorrupted      Code = 10
	CodeOutOfMemory        Code = 11
	CodeFailedPrecondition Code = 12
	CodeDeadlineExceeded   Code = 13
	CodeCancelled          Code = 14
	CodeDevice             Code = 15
	CodeInternal           Code = 16
)

// String returns the code's stable name ("NOT_FOUND", ...) as libfrugal
// spells it, so Go and C logs agree; "UNKNOWN" for a value libfrugal does
// not know. The name is static storage in libfrugal, copied here.
func (c Code) String() string {
	return C.GoString(C.frugal_error_code_name(C.int32_t(c)))
}

// Error is a failure reported by libfrugal or one of its plugins. It is a
// plain Go value: the C error object it came from is already destroyed.
type Error struct {
	Code    Code
	Message string
}

// Error formats the error as "CODE_NAME: message".
func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// takeError converts a frugal_error* returned by a C call into a Go error
// and destroys the C object, so callers never hold C memory. It is the one
// place every returned frugal_error* goes through; nil stays nil.
func takeError(e *C.frugal_error) error {
	if e == nil {
		return nil
	}
	defer C.frugal_error_destroy(e)
	return &Error{
		Code:    Code(C.frugal_error_code(e)),
		Message: C.GoString(C.frugal_error_message(e)),
	}
}

// closedError is what a method of a closed handle returns: a Go-side check,
// so no NULL handle ever reaches C.
func closedError(what string) error {
	return &Error{Code: CodeFailedPrecondition, Message: what + " is closed"}
}
