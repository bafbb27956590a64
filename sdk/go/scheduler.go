package frugal

/*
#include <stdlib.h>
#include "frugal/scheduler.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// PolicyConfig names one policy of a scheduler and its options (nil for
// the policy's defaults).
type PolicyConfig struct {
	Name    string
	Options *Options
}

// SchedulerConfig is what a scheduler is made of. Read during NewScheduler
// only, so its Options may be closed right after.
type SchedulerConfig struct {
	// Schedule is an LR schedule strategy ("cosine", ...); "" for none (LR 0).
	Schedule        string
	ScheduleOptions *Options
	// Policies in priority order (at most 64).
	Policies []PolicyConfig
	// GPUsPerNode for the ledger's GPU-hours; 0 means 1.
	GPUsPerNode uint32
	// Comm (ABI 2.4), when not nil, makes the scheduler the job's across
	// the comm's ranks: NewScheduler and every Step are collective over it,
	// every rank passes its own telemetry and gets the same decision,
	// reason and ledger (docs/scheduler-across-ranks.md). The scheduler
	// keeps a sub-group of its own, so the comm may be closed right after
	// NewScheduler. It must take host memory ("local", "mpi"). A closed
	// comm is CodeFailedPrecondition.
	Comm *Comm
}

// Ledger is where the money and the time went (frugal_cost_ledger).
// Dollars = Productive + Stall + Lost = Spot + Reserved, to rounding.
type Ledger struct {
	Dollars              float64
	SpotDollars          float64
	ReservedDollars      float64
	ProductiveDollars    float64
	StallDollars         float64
	LostDollars          float64
	GPUHours             float64
	WallS                float64
	ProductiveS          float64
	StallS               float64
	LostS                float64
	Restarts             int64
	CheckpointsFull      int64
	CheckpointsHeartbeat int64
	LossFirst            float64
	LossBest             float64
	DollarsPerLoss       float64
}

// Scheduler turns telemetry into decisions (learning rate, checkpoints,
// capacity, stop) and keeps a cost ledger.
//
// Ownership: created by NewScheduler, released by Close. It does not
// reference the context afterwards.
//
// Thread safety: one goroutine at a time (libfrugal does not lock);
// distinct schedulers are independent.
type Scheduler struct {
	_ noCopy
	*schedulerHandle
}

// schedulerHandle owns the C object; every copy of a
// Scheduler shares it (handle.go).
type schedulerHandle struct {
	ptr *C.frugal_scheduler
	borrows
}

// cStrings is a NULL-free array of C strings in C memory: the config holds
// pointers to it, so it must not be Go memory.
type cStrings struct {
	array **C.char
	n     int
}

func newCStrings(values []string) cStrings {
	if len(values) == 0 {
		return cStrings{}
	}
	size := C.size_t(len(values)) * C.size_t(unsafe.Sizeof((*C.char)(nil)))
	array := (**C.char)(C.malloc(size))
	items := unsafe.Slice(array, len(values))
	for i, v := range values {
		items[i] = C.CString(v)
	}
	return cStrings{array: array, n: len(values)}
}

func (s cStrings) free() {
	if s.array == nil {
		return
	}
	for _, p := range unsafe.Slice(s.array, s.n) {
		C.free(unsafe.Pointer(p))
	}
	C.free(unsafe.Pointer(s.array))
}

// NewScheduler creates a scheduler: instances of the schedule and of every
// policy. An unknown name is CodeNotFound; a plugin's option error is
// prefixed with "policy 'name': " or "schedule 'name': ".
func NewScheduler(ctx *Context, cfg SchedulerConfig) (*Scheduler, error) {
	if ctx == nil || ctx.ptr == nil {
		return nil, closedError("context")
	}
	var c C.frugal_scheduler_config
	c.struct_size = C.sizeof_frugal_scheduler_config
	c.gpus_per_node = C.uint32_t(cfg.GPUsPerNode)
	if cfg.Comm != nil {
		if cfg.Comm.ptr == nil {
			return nil, closedError("comm")
		}
		c.comm = cfg.Comm.ptr
	}
	if cfg.Schedule != "" {
		c.schedule = C.CString(cfg.Schedule)
		defer C.free(unsafe.Pointer(c.schedule))
		opts, err := optionsArg(cfg.ScheduleOptions)
		if err != nil {
			return nil, err
		}
		c.schedule_options = opts
	}
	names := make([]string, len(cfg.Policies))
	for i, p := range cfg.Policies {
		names[i] = p.Name
	}
	policies := newCStrings(names)
	defer policies.free()
	if n := len(cfg.Policies); n > 0 {
		// An array of C pointers in C memory, like the names.
		optsArray := (**C.frugal_options)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof((*C.frugal_options)(nil)))))
		defer C.free(unsafe.Pointer(optsArray))
		items := unsafe.Slice(optsArray, n)
		for i, p := range cfg.Policies {
			opts, err := optionsArg(p.Options)
			if err != nil {
				return nil, fmt.Errorf("policy %q: %w", p.Name, err)
			}
			items[i] = opts
		}
		c.policies = policies.array
		c.policy_options = optsArray
		c.policy_count = C.size_t(n)
	}
	var out *C.frugal_scheduler
	if err := takeError(C.frugal_scheduler_create(ctx.ptr, &c, &out)); err != nil {
		return nil, err
	}
	return &Scheduler{schedulerHandle: &schedulerHandle{ptr: out}}, nil
}

// Step books one record and decides. A malformed record is
// CodeInvalidArgument naming the field, and changes nothing; a policy's
// error fails the scheduler until ImportState.
func (s *Scheduler) Step(t Telemetry) (Decision, error) {
	if s.ptr == nil {
		return Decision{}, closedError("scheduler")
	}
	ct := t.toC()
	var d C.frugal_decision
	d.struct_size = C.sizeof_frugal_decision
	if err := takeError(C.frugal_scheduler_step(s.ptr, &ct, &d)); err != nil {
		return Decision{}, err
	}
	// The reason string lives in the scheduler until its next call: copy it.
	return decisionFromC(&d), nil
}

// Ledger returns a copy of the cost ledger.
func (s *Scheduler) Ledger() (Ledger, error) {
	if s.ptr == nil {
		return Ledger{}, closedError("scheduler")
	}
	var l C.frugal_cost_ledger
	l.struct_size = C.sizeof_frugal_cost_ledger
	if err := takeError(C.frugal_scheduler_ledger(s.ptr, &l)); err != nil {
		return Ledger{}, err
	}
	return Ledger{
		Dollars: float64(l.dollars), SpotDollars: float64(l.spot_dollars), ReservedDollars: float64(l.reserved_dollars),
		ProductiveDollars: float64(l.productive_dollars), StallDollars: float64(l.stall_dollars),
		LostDollars: float64(l.lost_dollars), GPUHours: float64(l.gpu_hours), WallS: float64(l.wall_s),
		ProductiveS: float64(l.productive_s), StallS: float64(l.stall_s), LostS: float64(l.lost_s),
		Restarts: int64(l.restarts), CheckpointsFull: int64(l.checkpoints_full),
		CheckpointsHeartbeat: int64(l.checkpoints_heartbeat), LossFirst: float64(l.loss_first),
		LossBest: float64(l.loss_best), DollarsPerLoss: float64(l.dollars_per_loss),
	}, nil
}

// ExportState serialises the scheduler (counters, ledger, every policy's
// state). The export counts as a checkpoint for the ledger: call it while
// writing one.
func (s *Scheduler) ExportState() ([]byte, error) {
	if s.ptr == nil {
		return nil, closedError("scheduler")
	}
	return exportState(func(buf unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.frugal_error {
		return C.frugal_scheduler_export_state(s.ptr, buf, capacity, size)
	})
}

// ImportState restores a blob exported by a scheduler with the same
// configuration; a bad blob is an error and leaves the scheduler as it was.
func (s *Scheduler) ImportState(state []byte) error {
	if s.ptr == nil {
		return closedError("scheduler")
	}
	if len(state) == 0 {
		return &Error{Code: CodeInvalidArgument, Message: "scheduler state is empty"}
	}
	data, size := stateArg(state)
	return takeError(C.frugal_scheduler_import_state(s.ptr, data, size))
}

// Close destroys the scheduler and its strategy instances. Calling it
// again does nothing. It fails with CodeFailedPrecondition while the
// scheduler is registered with a checkpoint engine.
func (s *Scheduler) Close() error {
	if err := s.closeRefusal("scheduler"); err != nil {
		return err
	}
	if s.ptr != nil {
		C.frugal_scheduler_destroy(s.ptr)
		s.ptr = nil
	}
	return nil
}
