package frugal

/*
#include <stdlib.h>
#include "frugal/packer.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Packer turns sequence lengths into pack plans: an instance of a
// KindPacker strategy (the built-in one is "packer_seq").
//
// Ownership: created by NewPacker, released by Close. It does not reference
// the context afterwards; plans it made stay valid after it is closed.
//
// Thread safety: Pack may run on several goroutines at once only when the
// strategy has StrategyThreadSafe (packer_seq's does); Close must not race
// any other call.
type Packer struct {
	_ noCopy
	*packerHandle
}

// packerHandle owns the C object; every copy of a
// Packer shares it (handle.go).
type packerHandle struct {
	ptr *C.frugal_packer
}

// NewPacker creates packer `name`. opts is required: the core reads
// max_len (int, > 0), max_per_pack, overlong ("error", "truncate",
// "split") and seed, and passes the rest to the strategy.
func NewPacker(ctx *Context, name string, opts *Options) (*Packer, error) {
	args, err := newStrategyArgs(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	defer args.free()
	var out *C.frugal_packer
	if err := takeError(C.frugal_packer_create(args.ctx, args.name, args.opts, &out)); err != nil {
		return nil, err
	}
	return &Packer{packerHandle: &packerHandle{ptr: out}}, nil
}

// Pack assigns sequence i (lengths[i] tokens, each >= 1) to a pack. The
// slice is passed to C for the duration of the call only; libfrugal copies
// what it needs. An empty slice fails with CodeInvalidArgument.
func (p *Packer) Pack(lengths []int64) (*PackPlan, error) {
	if p.ptr == nil {
		return nil, closedError("packer")
	}
	// &lengths[0] would panic on an empty slice; libfrugal reports count 0
	// as an error itself, so pass NULL and let it speak.
	var first *C.int64_t
	if len(lengths) > 0 {
		first = (*C.int64_t)(unsafe.Pointer(&lengths[0]))
	}
	var out *C.frugal_pack_plan
	if err := takeError(C.frugal_packer_pack(p.ptr, first, C.size_t(len(lengths)), &out)); err != nil {
		return nil, err
	}
	return newPackPlan(out)
}

// PackHistogram packs a length histogram: counts[b] sequences of
// lengths[b] tokens each. Sequences are numbered in bin order (bin 0's get
// ids 0..counts[0]-1, and so on). Lengths must be >= 1 and counts >= 0
// with a positive sum; a length may appear in several bins. The slices
// cross for the call only; different lengths are CodeInvalidArgument.
func (p *Packer) PackHistogram(lengths, counts []int64) (*PackPlan, error) {
	if p.ptr == nil {
		return nil, closedError("packer")
	}
	if len(lengths) != len(counts) {
		return nil, &Error{Code: CodeInvalidArgument,
			Message: fmt.Sprintf("histogram: %d lengths but %d counts", len(lengths), len(counts))}
	}
	var out *C.frugal_pack_plan
	err := takeError(C.frugal_packer_pack_histogram(p.ptr, (*C.int64_t)(firstOf(lengths)),
		(*C.int64_t)(firstOf(counts)), C.size_t(len(lengths)), &out))
	if err != nil {
		return nil, err
	}
	return newPackPlan(out)
}

// Close destroys the packer. Calling it again does nothing.
func (p *Packer) Close() error {
	if p.ptr != nil {
		C.frugal_packer_destroy(p.ptr)
		p.ptr = nil
	}
	return nil
}
