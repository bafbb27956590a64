package frugal

/*
#include "frugal/schedule.h"
*/
import "C"

// Schedule is a learning-rate schedule: an instance of a KindSchedule
// strategy such as "cosine" from the schedule_lr plugin.
//
// Ownership: created by NewSchedule, released by Close. It keeps its plugin
// loaded and does not reference the context, so it may outlive it.
//
// Thread safety: LR may run on several goroutines at once only when the
// strategy has StrategyThreadSafe (see Context.Plugins); otherwise the
// caller serialises. Close must not race any other call.
type Schedule struct {
	_ noCopy
	*scheduleHandle
}

// scheduleHandle owns the C object; every copy of a
// Schedule shares it (handle.go).
type scheduleHandle struct {
	ptr *C.frugal_schedule
}

// NewSchedule creates schedule `name` ("name" or "plugin/name") configured
// by opts (nil for defaults; read during the call only). An unknown name
// fails with CodeNotFound.
func NewSchedule(ctx *Context, name string, opts *Options) (*Schedule, error) {
	args, err := newStrategyArgs(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	defer args.free()
	var out *C.frugal_schedule
	if err := takeError(C.frugal_schedule_create(args.ctx, args.name, args.opts, &out)); err != nil {
		return nil, err
	}
	return &Schedule{scheduleHandle: &scheduleHandle{ptr: out}}, nil
}

// LR returns the learning rate at step (>= 0; a negative step fails with
// CodeOutOfRange from the plugin).
func (s *Schedule) LR(step int64) (float64, error) {
	if s.ptr == nil {
		return 0, closedError("schedule")
	}
	var lr C.double
	if err := takeError(C.frugal_schedule_lr(s.ptr, C.int64_t(step), &lr)); err != nil {
		return 0, err
	}
	return float64(lr), nil
}

// Close destroys the schedule (possibly unloading its plugin). Calling it
// again does nothing.
func (s *Schedule) Close() error {
	if s.ptr != nil {
		C.frugal_schedule_destroy(s.ptr)
		s.ptr = nil
	}
	return nil
}
