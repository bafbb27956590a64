package frugal

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"runtime/cgo"
	"time"
	"unsafe"
)

// Save flags (FRUGAL_CKPT_SAVE_*).
const (
	// SaveWait persists before returning (as if followed by Wait).
	SaveWait uint32 = 1 << 0
	// SaveSkipIfBusy drops the request when a persist is in flight.
	SaveSkipIfBusy uint32 = 1 << 1
)

// ListVerifyShards makes List read and check every shard, not only the
// manifests.
const ListVerifyShards uint32 = 1 << 0

// CkptEngine takes heartbeat and full checkpoints of registered tensors
// through a Store: Save snapshots them (the only wait for the caller) and a
// background thread persists the snapshot; Restore reads a verified
// checkpoint back into them.
//
// Ownership: created by NewCkptEngine, released by Close, which waits for
// an in-flight persist. Registered tensors are CTensors (C memory: the
// engine keeps pointers to them after Register returns, which Go memory
// does not allow); they cannot be closed while registered.
//
// Thread safety: every method may be called from any goroutine (libfrugal
// serialises them), except Close, which must not race other calls.
// Registered memory must not be written while Save or Restore runs.
type CkptEngine struct {
	_ noCopy
	*ckptEngineHandle
}

// ckptEngineHandle owns the C object; every copy of a
// CkptEngine shares it (handle.go).
type ckptEngineHandle struct {
	ptr        *C.frugal_ckpt_engine
	registered map[string]*CTensor
	// states keeps each registered object or Go state referenced while the
	// core may call it (ckpt_state.go).
	states map[string]registeredState
}

// NewCkptEngine creates an engine writing through store (which it keeps
// open: the Store may be closed right after). opts (nil for defaults):
// keep_heartbeats, keep_full, shard_bytes, prefix, and comm
// (Options.SetComm("comm", c), ABI 2.2; a comm on host memory, "local" or
// "mpi"): the job's ranks then save and restore together (RegisterSlice).
// Creating the engine is then collective over the comm, as are Save,
// EmergencySave and Restore: every rank calls them in the same order with
// the same kind and step. The engine keeps sub-groups of its own, so the
// Comm and the Options may be closed once it is created.
func NewCkptEngine(store *Store, opts *Options) (*CkptEngine, error) {
	if store == nil || store.ptr == nil {
		return nil, closedError("store")
	}
	copts, err := optionsArg(opts)
	if err != nil {
		return nil, err
	}
	var out *C.frugal_ckpt_engine
	if err := takeError(C.frugal_ckpt_engine_create(store.ptr, copts, &out)); err != nil {
		return nil, err
	}
	return &CkptEngine{ckptEngineHandle: &ckptEngineHandle{ptr: out, registered: map[string]*CTensor{},
		states: map[string]registeredState{}}}, nil
}

// withName runs call with name as a C string freed before returning.
func (e *CkptEngine) withName(name string, call func(cname *C.char) *C.frugal_error) error {
	if e.ptr == nil {
		return closedError("checkpoint engine")
	}
	return withCString(name, call)
}

// Register adds tensor t under name (1..255 bytes of [A-Za-z0-9_.-/],
// unique) to the checkpoints of the kinds in mask `kinds` (0: all). The
// engine reads and writes t's memory until Unregister or Close.
func (e *CkptEngine) Register(name string, t *CTensor, kinds CkptKind) error {
	if t == nil || t.ptr == nil {
		return &Error{Code: CodeInvalidArgument, Message: "tensor '" + name + "' is closed or nil"}
	}
	err := e.withName(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_ckpt_register(e.ptr, cname, t.cView(), C.uint32_t(kinds))
	})
	if err != nil {
		return err
	}
	e.registered[name] = t
	t.registered++
	return nil
}

// Unregister removes the tensor or state name; CodeNotFound if it is not
// registered. A registered object may be closed once no engine holds it.
func (e *CkptEngine) Unregister(name string) error {
	err := e.withName(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_ckpt_unregister(e.ptr, cname)
	})
	if err != nil {
		return err
	}
	if t, ok := e.registered[name]; ok {
		t.registered--
		delete(e.registered, name)
	}
	if state, ok := e.states[name]; ok {
		state.release()
		delete(e.states, name)
	}
	return nil
}

// Save takes a checkpoint of kind (CkptHeartbeat or CkptFull) at step,
// with metadata bytes (copied; at most 64 MiB) and flags (SaveWait,
// SaveSkipIfBusy). Without SaveWait it returns once the snapshot is taken;
// Wait reports the persist.
func (e *CkptEngine) Save(kind CkptKind, step uint64, metadata []byte, flags uint32) (SaveResult, error) {
	if e.ptr == nil {
		return SaveResult{}, closedError("checkpoint engine")
	}
	var r C.frugal_ckpt_save_result
	r.struct_size = C.sizeof_frugal_ckpt_save_result
	// The metadata crosses as a direct argument; the shim builds the args.
	err := takeError(C.frugal_go_ckpt_save(e.ptr, C.int32_t(kind), C.uint32_t(flags), C.uint64_t(step),
		firstOf(metadata), C.size_t(len(metadata)), &r))
	if err != nil {
		return SaveResult{}, err
	}
	return SaveResult{
		Name:     C.GoString(&r.name[0]),
		Skipped:  r.skipped != 0,
		Bytes:    uint64(r.bytes),
		Wait:     seconds(r.wait_seconds),
		Snapshot: seconds(r.snapshot_seconds),
	}, nil
}

// EmergencyResult is the outcome of CkptEngine.EmergencySave.
type EmergencyResult struct {
	// Name of the emergency heartbeat ("" when an in-flight persist used
	// up the whole deadline before it could start).
	Name string
	// Committed is true when its manifest was durable before the deadline.
	Committed bool
	// Elapsed runs from the call to the commit (or to the deadline).
	Elapsed time.Duration
}

// EmergencySave takes an emergency heartbeat (a CkptHeartbeat marked
// Emergency: what a preemption notice leaves time for) at step, with
// metadata bytes (copied), and waits for it at most deadline from the
// call (e.g. 110s of AWS's 120-second notice, 25s of GCP's 30); an
// in-flight persist is waited for first, within the same deadline. Missing
// the deadline is not an error: Committed is false, and the save keeps
// persisting in the background (and still commits if the process
// survives). deadline <= 0 is CodeInvalidArgument.
func (e *CkptEngine) EmergencySave(step uint64, metadata []byte, deadline time.Duration) (EmergencyResult, error) {
	if e.ptr == nil {
		return EmergencyResult{}, closedError("checkpoint engine")
	}
	var r C.frugal_ckpt_emergency_result
	r.struct_size = C.sizeof_frugal_ckpt_emergency_result
	// The metadata crosses as a direct argument; the shim builds the args.
	err := takeError(C.frugal_go_ckpt_emergency_save(e.ptr, C.uint64_t(step), firstOf(metadata),
		C.size_t(len(metadata)), C.double(deadline.Seconds()), &r))
	if err != nil {
		return EmergencyResult{}, err
	}
	return EmergencyResult{Name: C.GoString(&r.name[0]), Committed: r.committed != 0, Elapsed: seconds(r.seconds)}, nil
}

// Wait blocks until no persist is in flight and returns the last persist's
// outcome, or its error if it failed and that was not reported before.
func (e *CkptEngine) Wait() (PersistResult, error) {
	if e.ptr == nil {
		return PersistResult{}, closedError("checkpoint engine")
	}
	var r C.frugal_ckpt_persist_result
	r.struct_size = C.sizeof_frugal_ckpt_persist_result
	if err := takeError(C.frugal_ckpt_wait(e.ptr, &r)); err != nil {
		return PersistResult{}, err
	}
	return PersistResult{Name: C.GoString(&r.name[0]), Bytes: uint64(r.bytes), Persist: seconds(r.persist_seconds)}, nil
}

// Latest finds the newest checkpoint of a kind in `kinds` that fully
// verifies; CodeNotFound (listing what was skipped) when none does.
func (e *CkptEngine) Latest(kinds CkptKind) (CkptInfo, error) {
	if e.ptr == nil {
		return CkptInfo{}, closedError("checkpoint engine")
	}
	info := newCkptInfo()
	if err := takeError(C.frugal_ckpt_latest(e.ptr, C.uint32_t(kinds), &info)); err != nil {
		return CkptInfo{}, err
	}
	return ckptInfoFromC(&info), nil
}

// Verify fully verifies checkpoint name; the outcome is in Status and
// Reason (the call fails only for a bad name or CodeNotFound).
func (e *CkptEngine) Verify(name string) (CkptInfo, error) {
	info := newCkptInfo()
	err := e.withName(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_ckpt_verify(e.ptr, cname, &info)
	})
	if err != nil {
		return CkptInfo{}, err
	}
	return ckptInfoFromC(&info), nil
}

// List returns every checkpoint under the engine's prefix, newest first.
// flags: ListVerifyShards to check shards too (reads every byte).
func (e *CkptEngine) List(flags uint32) ([]CkptInfo, error) {
	if e.ptr == nil {
		return nil, closedError("checkpoint engine")
	}
	var out []CkptInfo
	visit := func(info CkptInfo) { out = append(out, info) }
	// C receives an integer handle, never a Go pointer.
	h := cgo.NewHandle(visit)
	defer h.Delete()
	if err := takeError(C.frugal_go_ckpt_list(e.ptr, C.uint32_t(flags), C.uintptr_t(h))); err != nil {
		return nil, err
	}
	return out, nil
}

// restoreMetadataGuess is the first metadata buffer Restore offers; a
// larger metadata costs one more attempt with the size libfrugal reports.
const restoreMetadataGuess = 4096

// Restore reads checkpoint name ("" for the newest that verifies among
// `kinds`) back into the registered tensors and returns what was restored
// and its metadata bytes. Every shard is verified before any tensor is
// written; a tensor in the checkpoint must be registered with the same
// dtype and shape (else CodeFailedPrecondition naming it). A heartbeat's
// full-only tensors come from the newest valid full checkpoint written
// before it (info.FullSource); info.NotRestored names the registered
// tensors left as they were: check it is empty before resuming training.
func (e *CkptEngine) Restore(name string, kinds CkptKind) (CkptInfo, []byte, error) {
	if e.ptr == nil {
		return CkptInfo{}, nil, closedError("checkpoint engine")
	}
	var cname *C.char
	if name != "" {
		cname = C.CString(name)
		defer C.free(unsafe.Pointer(cname))
	}
	info := newCkptInfo()
	// Too small a buffer restores nothing (a newer checkpoint may have
	// arrived before the retry, hence grownMetadata's loop).
	metadata, err := grownMetadata(func(buf []byte, size *C.size_t) error {
		info = newCkptInfo()
		return takeError(C.frugal_ckpt_restore(e.ptr, cname, C.uint32_t(kinds), unsafe.Pointer(&buf[0]),
			C.size_t(len(buf)), size, &info))
	})
	if err != nil {
		return CkptInfo{}, nil, err
	}
	restored := ckptInfoFromC(&info)
	if restored.NotRestored, err = e.restoreReport(uint32(info.not_restored_count)); err != nil {
		return CkptInfo{}, nil, err
	}
	return restored, metadata, nil
}

// grownMetadata returns the bytes fill writes into a buffer of
// restoreMetadataGuess bytes, or, when fill reports CodeOutOfRange with a
// larger size (having written nothing else), into a buffer of that size.
// The buffer is Go memory written during fill's call only.
func grownMetadata(fill func(buf []byte, size *C.size_t) error) ([]byte, error) {
	capacity := restoreMetadataGuess
	for {
		buf := make([]byte, capacity)
		var size C.size_t
		err := fill(buf, &size)
		if fe, ok := err.(*Error); ok && fe.Code == CodeOutOfRange && int(size) > capacity {
			capacity = int(size)
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:int(size):int(size)], nil
	}
}

// restoreReport reads the names of the count tensors the last restore did
// not write (frugal_ckpt_restore_report); nil when count is 0.
func (e *CkptEngine) restoreReport(count uint32) ([]string, error) {
	var names []string
	var name [C.FRUGAL_CKPT_TENSOR_NAME_CAPACITY]C.char
	for i := uint32(0); i < count; i++ {
		if err := takeError(C.frugal_ckpt_restore_report(e.ptr, C.uint32_t(i), &name[0], C.size_t(len(name)))); err != nil {
			return nil, err
		}
		names = append(names, C.GoString(&name[0]))
	}
	return names, nil
}

// RestoredMetadata returns the host metadata that rank `rank` of the
// writing job saved in the checkpoint the last successful Restore on this
// engine restored (ABI 2.3). Restore returns this rank's own metadata only
// when the job that saved had as many ranks (otherwise rank 0's); a job
// resumed on another number of ranks reads here what any saving rank kept
// (e.g. to share out its data-loader cursors). It reads nothing from the
// store and is not collective. CodeOutOfRange for a rank >= the restored
// checkpoint's WorldSize (0 is the only rank of an engine without a comm),
// CodeFailedPrecondition before any successful Restore.
func (e *CkptEngine) RestoredMetadata(rank uint32) ([]byte, error) {
	if e.ptr == nil {
		return nil, closedError("checkpoint engine")
	}
	return grownMetadata(func(buf []byte, size *C.size_t) error {
		return takeError(C.frugal_ckpt_restored_metadata(e.ptr, C.uint32_t(rank), unsafe.Pointer(&buf[0]),
			C.size_t(len(buf)), size))
	})
}

// PreemptionAgree reports whether any rank of the engine had a preemption
// notice (ABI 2.3): one all-reduce of one integer, cheap enough to call
// every step. With a comm it is collective, like Save (every rank calls it
// in the same order relative to the engine's other collectives); when any
// rank had a notice (PreemptionPending), the notice is recorded on every
// rank and every rank gets true, so all take EmergencySave at the same
// step. A rank that never calls makes it fail on the others with the
// comm's error once the comm's timeout passes (the engine's comm is then
// broken; end the process). Without a comm it reports this process's
// notice. Without a call, a notice still reaches every rank with the job's
// next Save.
func (e *CkptEngine) PreemptionAgree() (bool, error) {
	if e.ptr == nil {
		return false, closedError("checkpoint engine")
	}
	var pending C.int32_t
	if err := takeError(C.frugal_ckpt_preemption_agree(e.ptr, &pending)); err != nil {
		return false, err
	}
	return pending != 0, nil
}

// GC applies retention now and returns how many checkpoints it removed.
func (e *CkptEngine) GC() (uint32, error) {
	if e.ptr == nil {
		return 0, closedError("checkpoint engine")
	}
	var removed C.uint32_t
	err := takeError(C.frugal_ckpt_gc(e.ptr, &removed))
	return uint32(removed), err
}

// InspectJSON returns the manifest of checkpoint name as JSON.
func (e *CkptEngine) InspectJSON(name string) (string, error) {
	var json *C.char
	err := e.withName(name, func(cname *C.char) *C.frugal_error {
		return C.frugal_ckpt_inspect_json(e.ptr, cname, &json)
	})
	if err != nil {
		return "", err
	}
	defer C.frugal_string_free(json)
	return C.GoString(json), nil
}

// Close waits for an in-flight persist, destroys the engine and releases
// its registered tensors and states (they may be closed afterwards). Calling it again
// does nothing.
func (e *CkptEngine) Close() error {
	if e.ptr != nil {
		C.frugal_ckpt_engine_destroy(e.ptr)
		e.ptr = nil
		for name, t := range e.registered {
			t.registered--
			delete(e.registered, name)
		}
		for name, state := range e.states {
			state.release()
			delete(e.states, name)
		}
	}
	return nil
}
