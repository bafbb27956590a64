package frugal

/*
#include "shim.h"
*/
import "C"

import (
	"runtime/cgo"
	"sync"
)

// LogLevel is the severity of a libfrugal log message
// (frugal_log_level_values).
type LogLevel int32

// Log levels, as numbered in frugal/types.h.
const (
	LogTrace LogLevel = 0
	LogDebug LogLevel = 1
	LogInfo  LogLevel = 2
	LogWarn  LogLevel = 3
	LogError LogLevel = 4
	// LogOff as a minimum level drops every message.
	LogOff LogLevel = 1000
)

// String returns the level's lower-case name ("warn", ...).
func (l LogLevel) String() string {
	switch l {
	case LogTrace:
		return "trace"
	case LogDebug:
		return "debug"
	case LogInfo:
		return "info"
	case LogWarn:
		return "warn"
	case LogError:
		return "error"
	case LogOff:
		return "off"
	}
	return "unknown"
}

// LogFunc receives one log message: its level, its source ("core", a
// plugin's name, or a plugin's file path while its name is not yet known)
// and the message, both copied into Go strings.
type LogFunc func(level LogLevel, source, message string)

// liveLogs holds the cgo handles of installed log callbacks. libfrugal may
// deliver a message through a handle that was just replaced (a plugin
// thread racing SetLogCallback) or whose context is closed (an object that
// outlived its context); frugalGoLog looks the handle up here first and
// drops such messages instead of reading a deleted handle.
var liveLogs = struct {
	sync.Mutex
	m map[cgo.Handle]LogFunc
}{m: map[cgo.Handle]LogFunc{}}

func lookupLog(h cgo.Handle) LogFunc {
	liveLogs.Lock()
	defer liveLogs.Unlock()
	return liveLogs.m[h]
}

// forgetLogHandle unregisters and deletes h (0: nothing to do). cgo handles
// are never reused, so a stale one can never reach a newer callback.
func forgetLogHandle(h cgo.Handle) {
	if h == 0 {
		return
	}
	liveLogs.Lock()
	delete(liveLogs.m, h)
	liveLogs.Unlock()
	h.Delete()
}

// SetLogCallback sends the log messages of the context, and of the plugins
// it loads (those already loaded switch too), to fn; messages below
// minLevel are dropped. A nil fn silences logging; libfrugal has no way
// back to its default stderr sink short of a new context.
//
// fn may be called concurrently from several threads (Go or not), possibly
// while the context's internal lock is held: it must return promptly, must
// not panic, and must not call back into this context (that deadlocks).
// It reaches C as a runtime/cgo handle, never a Go pointer.
//
// A plugin file already loaded by another context in this process is
// shared with it and keeps logging to the first context's sink. Messages
// libfrugal delivers after fn was replaced, or after the context is
// closed (from schedules, quantizers, ... that outlive it), are dropped.
func (c *Context) SetLogCallback(fn LogFunc, minLevel LogLevel) error {
	if c.ptr == nil {
		return closedError("context")
	}
	var h cgo.Handle
	var enabled C.int32_t
	if fn != nil {
		h = cgo.NewHandle(fn)
		liveLogs.Lock()
		liveLogs.m[h] = fn
		liveLogs.Unlock()
		enabled = 1
	}
	if err := takeError(C.frugal_go_set_log_callback(c.ptr, enabled, C.uintptr_t(h), C.int32_t(minLevel))); err != nil {
		forgetLogHandle(h)
		return err
	}
	forgetLogHandle(c.logHandle)
	c.logHandle = h
	return nil
}
