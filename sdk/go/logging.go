package frugal

/*
#include "shim.h"
*/
import "C"

import (
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

// logID names an installed log callback in liveLogs; it reaches C as the
// callback's user data (a number, never a Go pointer). 0 means none.
type logID uintptr

// liveLogs maps the ids of installed log callbacks to their functions.
// libfrugal may deliver a message for an id that was just replaced (a
// plugin thread racing SetLogCallback) or whose context is closed (an
// object that outlived its context); frugalGoLog finds nothing for such an
// id and drops the message. Ids are never reused, so a stale one can never
// reach a newer callback.
var liveLogs = struct {
	sync.Mutex
	next logID
	m    map[logID]LogFunc
}{m: map[logID]LogFunc{}}

func lookupLog(id logID) LogFunc {
	liveLogs.Lock()
	defer liveLogs.Unlock()
	return liveLogs.m[id]
}

// registerLog stores fn under a fresh id.
func registerLog(fn LogFunc) logID {
	liveLogs.Lock()
	defer liveLogs.Unlock()
	liveLogs.next++
	liveLogs.m[liveLogs.next] = fn
	return liveLogs.next
}

// forgetLog unregisters id (0: nothing to do).
func forgetLog(id logID) {
	if id == 0 {
		return
	}
	liveLogs.Lock()
	delete(liveLogs.m, id)
	liveLogs.Unlock()
}

// SetLogCallback sends the log messages of the context, and of the plugins
// it loads (those already loaded switch too), to fn; messages below
// minLevel are dropped. A nil fn silences logging; libfrugal has no way
// back to its default stderr sink short of a new context.
//
// fn may be called concurrently from several threads (Go or not), possibly
// while the context's internal lock is held: it must return promptly, must
// not panic, and must not call back into this context (that deadlocks).
// It reaches C as a registry id, never a Go pointer.
//
// A plugin file already loaded by another context in this process is
// shared with it and keeps logging to the first context's sink. Messages
// libfrugal delivers after fn was replaced, or after the context is
// closed (from schedules, quantizers, ... that outlive it), are dropped.
func (c *Context) SetLogCallback(fn LogFunc, minLevel LogLevel) error {
	if c.ptr == nil {
		return closedError("context")
	}
	var id logID
	var enabled C.int32_t
	if fn != nil {
		id = registerLog(fn)
		enabled = 1
	}
	if err := takeError(C.frugal_go_set_log_callback(c.ptr, enabled, C.uintptr_t(id), C.int32_t(minLevel))); err != nil {
		forgetLog(id)
		return err
	}
	forgetLog(c.logID)
	c.logID = id
	return nil
}
