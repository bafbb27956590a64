package frugal

// This file holds the Go functions C calls back (through shim.c's
// trampolines). A file with //export may only declare in its preamble,
// hence its own file.

/*
#include <stddef.h>
#include <stdint.h>
#include "frugal/checkpoint.h"
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

//export frugalGoStateExport
func frugalGoStateExport(handle C.uintptr_t, buffer unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.frugal_error {
	return cgo.Handle(handle).Value().(*hostState).exportInto(buffer, capacity, size)
}

//export frugalGoStateImport
func frugalGoStateImport(handle C.uintptr_t, data unsafe.Pointer, size C.size_t) *C.frugal_error {
	return cgo.Handle(handle).Value().(*hostState).importFrom(data, size)
}

//export frugalGoCkptListVisit
func frugalGoCkptListVisit(handle C.uintptr_t, info *C.frugal_ckpt_info) C.int32_t {
	visit := cgo.Handle(handle).Value().(func(CkptInfo))
	visit(ckptInfoFromC(info))
	return 0
}

//export frugalGoStoreListVisit
func frugalGoStoreListVisit(handle C.uintptr_t, key *C.char, size C.uint64_t) C.int32_t {
	visit := cgo.Handle(handle).Value().(func(string, uint64))
	visit(C.GoString(key), uint64(size))
	return 0
}

//export frugalGoLog
func frugalGoLog(handle C.uintptr_t, level C.int32_t, source, message *C.char) {
	// A message may arrive after SetLogCallback replaced the callback or
	// the context was closed: lookupLog then finds nothing and it is dropped.
	if fn := lookupLog(logID(handle)); fn != nil {
		fn(LogLevel(level), C.GoString(source), C.GoString(message))
	}
}

//export frugalGoRelease
func frugalGoRelease(handle C.uintptr_t) {
	// libfrugal runs a release function exactly once, so the handle is
	// deleted here.
	h := cgo.Handle(handle)
	release := h.Value().(func())
	h.Delete()
	release()
}
