package frugal

/*
#include "frugal/comm.h"
*/
import "C"

import (
	"fmt"
	"math"
	"time"
)

// ColorNone is the Split color of a rank that joins no sub-group
// (FRUGAL_COMM_COLOR_NONE, as MPI_UNDEFINED).
const ColorNone = int(C.FRUGAL_COMM_COLOR_NONE)

// DefaultCommTimeout is the deadline of each call on a new comm
// (FRUGAL_COMM_DEFAULT_TIMEOUT_MS); SetTimeout changes it.
const DefaultCommTimeout = C.FRUGAL_COMM_DEFAULT_TIMEOUT_MS * time.Millisecond

// Comm is this process's end of a group of ranks (frugal/comm.h, ABI 2.1):
// an instance of a KindComm strategy. "local" (comm_local) is a group of
// one whose every collective is a copy, so a host codes one path; "mpi"
// (comm_mpi) joins the processes mpirun started, on host memory; "nccl"
// (comm_nccl) moves CUDA device memory, which no Tensor of this package
// describes, so from Go it serves only as an option handed to strategies.
//
// Collectives (AllReduce, Broadcast, AllGather, AllGatherV, ReduceScatter,
// AllToAll, AllToAllV, Barrier) follow MPI's rules: every rank makes
// the same calls in the same order with matching dtypes and counts, on
// compact tensors of the comm's DeviceType. A call never hangs: past its
// deadline (SetTimeout) it fails with CodeDeadlineExceeded, or with CodeIO
// when the transport reports a dead peer, naming the operation and the
// rank. The comm is then broken: every later call fails with
// CodeFailedPrecondition quoting the first failure; close it.
//
// Ownership: created by NewComm or Split, released by Close, which is
// local and never waits on peers. A comm set as an option (Options.SetComm)
// stays alive, in C, while those options or any strategy made with them
// hold it, even after Close.
//
// Thread safety: one goroutine at a time per comm (libfrugal serialises
// calls inside, but the order of collectives across ranks is the caller's
// to keep); different comms may be used from different goroutines. Close
// must not race any other call.
type Comm struct {
	_ noCopy
	*commHandle
}

// commHandle owns the C object; every copy of a Comm shares it
// (handle.go). Rank, size and device type never change for a comm, so they
// are read once and stay readable after Close.
type commHandle struct {
	ptr    *C.frugal_comm
	rank   int
	size   int
	device DeviceType
}

// adoptComm takes ownership of a comm libfrugal returned.
func adoptComm(ptr *C.frugal_comm) *Comm {
	return &Comm{commHandle: &commHandle{
		ptr:    ptr,
		rank:   int(C.frugal_comm_rank(ptr)),
		size:   int(C.frugal_comm_size(ptr)),
		device: DeviceType(C.frugal_comm_device_type(ptr)),
	}}
}

// NewComm creates a communicator from backend "local", "mpi", "nccl" or
// "plugin/name", configured by opts (nil for none; read during the call
// only; comm_mpi takes check_calls, join_timeout_ms, fortran_handle). It is
// collective over the group the backend joins (for "mpi": MPI_COMM_WORLD).
// An unknown backend is CodeNotFound naming it; backend errors are
// prefixed "comm 'backend': ".
//
// comm_mpi finalises MPI in a C atexit handler, which os.Exit and a return
// from main never run: a program using "mpi" ends through C's exit (cgo)
// after success, or mpirun reports its ranks as failed (README.md).
func NewComm(ctx *Context, backend string, opts *Options) (*Comm, error) {
	args, err := newStrategyArgs(ctx, backend, opts)
	if err != nil {
		return nil, err
	}
	defer args.free()
	var out *C.frugal_comm
	if err := takeError(C.frugal_comm_create(args.ctx, args.name, args.opts, &out)); err != nil {
		return nil, err
	}
	return adoptComm(out), nil
}

// Rank is this process's rank in the group, in [0, Size).
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks in the group, >= 1.
func (c *Comm) Size() int { return c.size }

// DeviceType is where the memory the collectives take lives: DeviceCPU for
// "local" and "mpi" (which also take DeviceCUDAPinned), DeviceCUDA for
// "nccl".
func (c *Comm) DeviceType() DeviceType { return c.device }

// Split divides the group as MPI_Comm_split does: ranks passing the same
// color (>= 0) form a sub-group, ranked by key, ties by their rank here.
// It is collective: every rank of the group calls it. A rank passing
// ColorNone joins none and gets a nil *Comm and a nil error. The sub-group
// starts with this comm's deadline and is owned by the caller (Close). A
// negative color other than ColorNone is CodeInvalidArgument; a color or
// key beyond int32 is CodeOutOfRange.
func (c *Comm) Split(color, key int) (*Comm, error) {
	if c.ptr == nil {
		return nil, closedError("comm")
	}
	ccolor, err := int32Arg("split: color", color)
	if err != nil {
		return nil, err
	}
	ckey, err := int32Arg("split: key", key)
	if err != nil {
		return nil, err
	}
	var out *C.frugal_comm
	if err := takeError(C.frugal_comm_split(c.ptr, ccolor, ckey, &out)); err != nil {
		return nil, err
	}
	if out == nil {
		return nil, nil
	}
	return adoptComm(out), nil
}

// int32Arg narrows an int for C, refusing a value that would wrap (a
// wrapped root or color could name a valid rank or group).
func int32Arg(what string, v int) (C.int32_t, error) {
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, &Error{Code: CodeOutOfRange, Message: fmt.Sprintf("%s %d does not fit int32", what, v)}
	}
	return C.int32_t(v), nil
}

// SetTimeout sets the deadline of each later call on this comm. libfrugal
// counts whole milliseconds: a positive timeout is rounded up to the next
// millisecond, and one <= 0 is CodeInvalidArgument. Local: it talks to no
// peer. Sub-groups made by Split start with their parent's deadline.
func (c *Comm) SetTimeout(timeout time.Duration) error {
	if c.ptr == nil {
		return closedError("comm")
	}
	ms := timeout.Milliseconds()
	if timeout > 0 && timeout%time.Millisecond != 0 {
		ms++
	}
	return takeError(C.frugal_comm_set_timeout(c.ptr, C.int64_t(ms)))
}

// Barrier returns once every rank of the group has entered it.
func (c *Comm) Barrier() error {
	if c.ptr == nil {
		return closedError("comm")
	}
	return takeError(C.frugal_comm_barrier(c.ptr))
}

// Close releases this handle. Calling it again does nothing. It is local
// and never waits on peers; options and strategies holding the comm keep
// it alive in C until they are destroyed.
func (c *Comm) Close() error {
	if c.ptr != nil {
		C.frugal_comm_destroy(c.ptr)
		c.ptr = nil
	}
	return nil
}
