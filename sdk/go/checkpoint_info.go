package frugal

/*
#include "frugal/checkpoint.h"
*/
import "C"

import "time"

// CkptKind is a checkpoint kind, shared by the engine and the scheduler's
// decisions; HEARTBEAT and FULL also combine as masks (CkptAllKinds).
type CkptKind uint32

// Checkpoint kinds (frugal_ckpt_kind_values).
const (
	CkptNone      CkptKind = 0 // no checkpoint now (decisions only)
	CkptHeartbeat CkptKind = 1 // light, frequent: what is needed to resume
	CkptFull      CkptKind = 2 // everything registered
	CkptAllKinds  CkptKind = 3
)

// CkptStatus is the verification outcome of one checkpoint.
type CkptStatus int32

// Checkpoint statuses (frugal_ckpt_status_values).
const (
	CkptValid       CkptStatus = 0 // manifest and every shard verify
	CkptIncomplete  CkptStatus = 1 // no manifest: an unfinished save
	CkptCorrupt     CkptStatus = 2 // a size or checksum fails
	CkptNewerFormat CkptStatus = 3 // written by a newer frugal
	CkptUnreadable  CkptStatus = 4 // the store failed to read it
)

// CkptInfo describes one checkpoint in the store (frugal_ckpt_info),
// copied into Go.
type CkptInfo struct {
	Name     string
	Kind     CkptKind
	Status   CkptStatus
	Step     uint64
	Sequence uint64 // engine-wide save counter
	// Created is when the save started; the zero Time when unknown.
	Created     time.Time
	Bytes       uint64
	TensorCount uint32
	// StateCount is the registered states it holds (RegisterRouter, ...).
	StateCount uint32
	Emergency  bool
	// Reason says why the checkpoint is not valid ("" when it is).
	Reason string
	// FullSource (set by Restore only) names the full checkpoint the
	// full-only tensors were restored from: the restored one itself when it
	// is full, the newest valid full one written before a restored
	// heartbeat, "" when none supplied state.
	FullSource string
	// NotRestored (set by Restore only) names the registered tensors the
	// restore left as they were (e.g. a heartbeat's full-only state with no
	// valid full checkpoint before it); empty when every tensor was restored.
	NotRestored []string
	// WorldSize is the number of ranks of the job that wrote it (ABI 2.3): 1
	// for an engine without a comm, the comm's size otherwise; 0 when no
	// manifest was read (an incomplete or unreadable checkpoint in List).
	WorldSize uint32
}

func ckptInfoFromC(c *C.frugal_ckpt_info) CkptInfo {
	info := CkptInfo{
		Name:        C.GoString(&c.name[0]),
		Kind:        CkptKind(c.kind),
		Status:      CkptStatus(c.status),
		Step:        uint64(c.step),
		Sequence:    uint64(c.sequence),
		Bytes:       uint64(c.bytes),
		TensorCount: uint32(c.tensor_count),
		StateCount:  uint32(c.state_count),
		Emergency:   c.emergency != 0,
		Reason:      C.GoString(&c.reason[0]),
		FullSource:  C.GoString(&c.full_source[0]),
		WorldSize:   uint32(c.world_size),
	}
	if c.created_unix_ns != 0 {
		info.Created = time.Unix(0, int64(c.created_unix_ns))
	}
	return info
}

// newCkptInfo is a C info struct with struct_size set, for out-parameters.
func newCkptInfo() C.frugal_ckpt_info {
	var c C.frugal_ckpt_info
	c.struct_size = C.sizeof_frugal_ckpt_info
	return c
}

// SaveResult is the outcome of CkptEngine.Save.
type SaveResult struct {
	// Name of the checkpoint started ("" when skipped).
	Name    string
	Skipped bool
	// Bytes of tensors and metadata in the snapshot.
	Bytes uint64
	// Wait is the time spent waiting for the previous persist; Snapshot the
	// time spent copying state (the training stall).
	Wait     time.Duration
	Snapshot time.Duration
}

// PersistResult is the outcome of the last background persist.
type PersistResult struct {
	// Name of the checkpoint persisted ("" if none since the last Wait).
	Name    string
	Bytes   uint64
	Persist time.Duration
}

func seconds(s C.double) time.Duration { return time.Duration(float64(s) * float64(time.Second)) }
