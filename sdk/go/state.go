package frugal

/*
#include <stddef.h>
#include "frugal/types.h"
*/
import "C"

import "unsafe"

// exportFn is a frugal_*_export_state call bound to its object.
type exportFn func(buffer unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.frugal_error

// exportState asks for the blob's size, then exports into a Go buffer of
// that size. The buffer crosses as a direct argument for the call only.
// A state that grew between the two calls (another goroutine stepped the
// object) is asked for again rather than reported as OUT_OF_RANGE.
func exportState(export exportFn) ([]byte, error) {
	for {
		var size C.size_t
		if err := takeError(export(nil, 0, &size)); err != nil {
			return nil, err
		}
		if size == 0 {
			return []byte{}, nil
		}
		buf := make([]byte, int(size))
		var written C.size_t
		err := takeError(export(unsafe.Pointer(&buf[0]), size, &written))
		if fe, ok := err.(*Error); ok && fe.Code == CodeOutOfRange && written > size {
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:int(written)], nil
	}
}

// stateArg is the pointer to pass for an imported blob: NULL when empty
// (the import calls accept NULL with size 0).
func stateArg(data []byte) (unsafe.Pointer, C.size_t) {
	return firstOf(data), C.size_t(len(data))
}
