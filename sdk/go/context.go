package frugal

/*
#include <stdlib.h>
#include "frugal/context.h"
*/
import "C"

import (
	"unsafe"
)

// Discovery flags for Context.DiscoverPlugins (FRUGAL_DISCOVER_* in
// frugal/context.h).
const (
	// DiscoverNoEnv skips the FRUGAL_PLUGIN_PATH environment variable.
	DiscoverNoEnv uint32 = 1 << 0
	// DiscoverNoBuiltin skips the plugin directory next to libfrugal.
	DiscoverNoBuiltin uint32 = 1 << 1
)

// Context owns a set of loaded plugins and the strategy registry.
//
// Ownership: created by NewContext, released by Close. Schedules and
// packers made from it keep their plugins loaded on their own, so they may
// outlive it.
//
// Thread safety: every method except Close may be called from several
// goroutines at once (libfrugal serialises calls on one context). Close
// must not run concurrently with any other call on the same context.
type Context struct {
	_ noCopy
	*contextHandle
}

// contextHandle owns the C object; every copy of a
// Context shares it (handle.go).
type contextHandle struct {
	ptr *C.frugal_context
	// logID names the Go log callback in liveLogs (0: none); see
	// SetLogCallback.
	logID logID
}

// NewContext creates a context with no plugins loaded and libfrugal's
// default log sink (warnings and errors to stderr).
func NewContext() (*Context, error) {
	var out *C.frugal_context
	if err := takeError(C.frugal_context_create(&out)); err != nil {
		return nil, err
	}
	return &Context{contextHandle: &contextHandle{ptr: out}}, nil
}

// Close destroys the context. Calling it again does nothing.
func (c *Context) Close() error {
	if c.ptr != nil {
		C.frugal_context_destroy(c.ptr)
		c.ptr = nil
		forgetLog(c.logID)
		c.logID = 0
	}
	return nil
}

// AddPluginDir adds a directory that DiscoverPlugins scans after the
// environment and the built-in directory.
func (c *Context) AddPluginDir(path string) error {
	if c.ptr == nil {
		return closedError("context")
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	return takeError(C.frugal_context_add_plugin_dir(c.ptr, cpath))
}

// DiscoverPlugins loads every plugin found in FRUGAL_PLUGIN_PATH, the
// built-in directory and the added directories (flags: Discover*), and
// returns how many were newly loaded. A file that fails to load is recorded
// by libfrugal and logged; it does not fail this call.
func (c *Context) DiscoverPlugins(flags uint32) (int, error) {
	if c.ptr == nil {
		return 0, closedError("context")
	}
	var loaded C.size_t
	if err := takeError(C.frugal_context_discover_plugins(c.ptr, C.uint32_t(flags), &loaded)); err != nil {
		return 0, err
	}
	return int(loaded), nil
}

// LoadPlugin loads one plugin file; loading a file already loaded succeeds
// and does nothing.
func (c *Context) LoadPlugin(path string) error {
	if c.ptr == nil {
		return closedError("context")
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	return takeError(C.frugal_context_load_plugin(c.ptr, cpath))
}
