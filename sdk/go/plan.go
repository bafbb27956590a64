package frugal

/*
#include "frugal/packer.h"
*/
import "C"

import "unsafe"

// PackStats summarises a plan (a subset of frugal_pack_stats).
type PackStats struct {
	Packs      int64
	Units      int64
	Sequences  int64
	RealTokens int64
	MaxLen     int64
	// LowerBound is ceil(RealTokens / MaxLen): no plan can use fewer packs.
	LowerBound int64
	// Efficiency is RealTokens / (Packs * MaxLen).
	Efficiency float64
	// Method names the algorithm that produced the plan ("ffd", ...).
	Method string
}

// PackPlan is the result of Packer.Pack: which sequences share each pack
// (row), plus the per-pack attention metadata.
//
// Ownership: owns the immutable C plan until Close. The assignment and the
// stats are copied into Go when the plan is made, so Packs, UnitLengths and
// Stats keep working after Close; CuSeqlens and PositionIDs ask the C plan
// and fail with CodeFailedPrecondition once it is closed.
//
// Thread safety: a plan is immutable, so any number of goroutines may read
// it; Close must not race any other call.
type PackPlan struct {
	_ noCopy
	*packPlanHandle
}

// packPlanHandle owns the C object; every copy of a
// PackPlan shares it (handle.go).
type packPlanHandle struct {
	ptr         *C.frugal_pack_plan
	packs       [][]int64
	unitLengths [][]int64
	stats       PackStats
}

// newPackPlan takes ownership of plan and copies its view and stats into
// Go memory; on failure it destroys plan.
func newPackPlan(plan *C.frugal_pack_plan) (*PackPlan, error) {
	p := &PackPlan{packPlanHandle: &packPlanHandle{ptr: plan}}
	if err := p.copyView(); err != nil {
		p.Close()
		return nil, err
	}
	if err := p.copyStats(); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// cInt64s copies n int64 values owned by C into a new Go slice, so nothing
// returned to the caller points into the plan.
func cInt64s(ptr *C.int64_t, n int) []int64 {
	out := make([]int64, n)
	if n > 0 {
		copy(out, unsafe.Slice((*int64)(unsafe.Pointer(ptr)), n))
	}
	return out
}

func (p *PackPlan) copyView() error {
	var view C.frugal_pack_plan_view
	view.struct_size = C.sizeof_frugal_pack_plan_view
	if err := takeError(C.frugal_pack_plan_view_get(p.ptr, &view)); err != nil {
		return err
	}
	packs := int(view.pack_count)
	units := int(view.unit_count)
	offsets := cInt64s(view.pack_offsets, packs+1)
	ids := cInt64s(view.sequence_ids, units)
	lengths := cInt64s(view.unit_lengths, units)
	p.packs = make([][]int64, packs)
	p.unitLengths = make([][]int64, packs)
	for i := 0; i < packs; i++ {
		lo, hi := offsets[i], offsets[i+1]
		p.packs[i] = ids[lo:hi:hi]
		p.unitLengths[i] = lengths[lo:hi:hi]
	}
	return nil
}

func (p *PackPlan) copyStats() error {
	var s C.frugal_pack_stats
	s.struct_size = C.sizeof_frugal_pack_stats
	if err := takeError(C.frugal_pack_plan_stats(p.ptr, &s)); err != nil {
		return err
	}
	p.stats = PackStats{
		Packs:      int64(s.packs),
		Units:      int64(s.units),
		Sequences:  int64(s.sequences),
		RealTokens: int64(s.real_tokens),
		MaxLen:     int64(s.max_len),
		LowerBound: int64(s.lower_bound),
		Efficiency: float64(s.efficiency),
		Method:     C.GoString(s.method),
	}
	return nil
}

// Packs returns, per pack, the sequence ids (indexes into the lengths given
// to Pack) in row order. A split sequence appears once per piece. The
// slices are shared with the plan: do not modify them.
func (p *PackPlan) Packs() [][]int64 { return p.packs }

// UnitLengths returns, per pack, the tokens of each unit in the order of
// Packs. Shared with the plan: do not modify.
func (p *PackPlan) UnitLengths() [][]int64 { return p.unitLengths }

// Stats returns the plan's statistics.
func (p *PackPlan) Stats() PackStats { return p.stats }

// CuSeqlens returns the flash-attention varlen description of pack `pack`:
// cu_seqlens (0, len0, len0+len1, ...; units + 1 entries) and the longest
// unit. A pack index out of range fails with CodeOutOfRange.
func (p *PackPlan) CuSeqlens(pack int) ([]int32, int32, error) {
	if p.ptr == nil {
		return nil, 0, closedError("pack plan")
	}
	if pack < 0 || pack >= len(p.packs) {
		return nil, 0, &Error{Code: CodeOutOfRange, Message: "pack index out of range"}
	}
	// The Go buffer is written by C during the call only.
	buf := make([]int32, len(p.packs[pack])+1)
	var written C.size_t
	var maxSeqlen C.int32_t
	err := takeError(C.frugal_pack_plan_varlen(p.ptr, C.size_t(pack), (*C.int32_t)(unsafe.Pointer(&buf[0])),
		C.size_t(len(buf)), &written, &maxSeqlen))
	if err != nil {
		return nil, 0, err
	}
	return buf[:int(written)], int32(maxSeqlen), nil
}

// PositionIDs returns the position ids of pack `pack` as a row of `length`
// tokens (length >= the pack's real tokens, usually max_len): 0, 1, ...
// restarting at each unit, 0 in the padding.
func (p *PackPlan) PositionIDs(pack, length int) ([]int64, error) {
	if p.ptr == nil {
		return nil, closedError("pack plan")
	}
	if length <= 0 {
		return nil, &Error{Code: CodeInvalidArgument, Message: "length must be > 0"}
	}
	out := make([]int64, length)
	err := takeError(C.frugal_pack_plan_position_ids(p.ptr, C.size_t(pack), (*C.int64_t)(unsafe.Pointer(&out[0])),
		C.size_t(length)))
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Close destroys the C plan. Calling it again does nothing.
func (p *PackPlan) Close() error {
	if p.ptr != nil {
		C.frugal_pack_plan_destroy(p.ptr)
		p.ptr = nil
	}
	return nil
}
