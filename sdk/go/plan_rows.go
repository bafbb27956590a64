package frugal

/*
#include "shim.h"
*/
import "C"

import "fmt"

// SegmentIDs returns the segment ids of pack `pack` as a row of `length`
// tokens (length >= the pack's real tokens): k+1 for every token of the
// pack's k-th unit, 0 for padding.
func (p *PackPlan) SegmentIDs(pack, length int) ([]int32, error) {
	if p.ptr == nil {
		return nil, closedError("pack plan")
	}
	if pack < 0 || length <= 0 {
		return nil, &Error{Code: CodeInvalidArgument, Message: "pack must be >= 0 and length > 0"}
	}
	out := make([]int32, length)
	err := takeError(C.frugal_pack_plan_segment_ids(p.ptr, C.size_t(pack), (*C.int32_t)(firstOf(out)),
		C.size_t(length)))
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Mask returns the dense block-diagonal causal mask of pack `pack`,
// row-major side x side (side >= the pack's real tokens): element
// q*side + k is 1 when query q may attend to key k (both in one unit and
// k <= q). A padding position attends only to itself, and no real token
// sees padding. It costs side^2 bytes: prefer CuSeqlens where the kernel
// takes it.
func (p *PackPlan) Mask(pack, side int) ([]uint8, error) {
	if p.ptr == nil {
		return nil, closedError("pack plan")
	}
	if pack < 0 || side <= 0 {
		return nil, &Error{Code: CodeInvalidArgument, Message: "pack must be >= 0 and side > 0"}
	}
	out := make([]uint8, side*side)
	err := takeError(C.frugal_pack_plan_mask(p.ptr, C.size_t(pack), (*C.uint8_t)(firstOf(out)), C.size_t(side)))
	if err != nil {
		return nil, err
	}
	return out, nil
}

// GatherArgs describes the caller's token arrays and the row to build
// (frugal_pack_gather_args).
type GatherArgs struct {
	// Tokens holds every sequence's token ids back to back.
	Tokens []int64
	// SequenceOffsets has one entry per sequence plus one: sequence s is
	// Tokens[SequenceOffsets[s]:SequenceOffsets[s+1]]. The plan's sequence
	// ids index it.
	SequenceOffsets []int64
	// Labels, in the layout of Tokens (same length); nil means the labels
	// are the tokens.
	Labels []int64
	// OutTokens receives the packed row (len(OutTokens) >= the pack's real
	// tokens; padding is PadToken).
	OutTokens []int64
	// OutLabels, nil for no labels or as long as OutTokens, receives the
	// packed labels.
	OutLabels []int64
	// PadToken is written into padding positions.
	PadToken int64
	// IgnoreIndex labels padding and masked first tokens. Set it: PyTorch's
	// losses use -100 (the zero value 0 is a real token id).
	IgnoreIndex int64
	// MaskFirstLabel sets each unit's first label to IgnoreIndex, so that no
	// token is trained to predict across a sequence boundary.
	MaskFirstLabel bool
}

// check verifies what libfrugal cannot: it receives the arrays as bare
// pointers, so the offsets must stay inside Tokens (else C would read
// past the Go slice).
func (a *GatherArgs) check() error {
	bad := func(format string, v ...interface{}) error {
		return &Error{Code: CodeInvalidArgument, Message: "gather: " + fmt.Sprintf(format, v...)}
	}
	if len(a.SequenceOffsets) < 1 {
		return bad("sequence offsets need at least one entry (sequences + 1)")
	}
	prev := int64(0)
	for i, off := range a.SequenceOffsets {
		if off < prev {
			return bad("sequence offset %d is %d, below the previous %d (or negative)", i, off, prev)
		}
		prev = off
	}
	if prev > int64(len(a.Tokens)) {
		return bad("the last sequence offset is %d, past the %d tokens", prev, len(a.Tokens))
	}
	if a.Labels != nil && len(a.Labels) != len(a.Tokens) {
		return bad("%d labels for %d tokens", len(a.Labels), len(a.Tokens))
	}
	if len(a.OutTokens) == 0 {
		return bad("out tokens is empty")
	}
	if a.OutLabels != nil && len(a.OutLabels) != len(a.OutTokens) {
		return bad("%d out labels for %d out tokens", len(a.OutLabels), len(a.OutTokens))
	}
	return nil
}

// Gather builds the packed token (and label) row of pack `pack` from the
// caller's arrays into args.OutTokens (and OutLabels). A sequence id not
// below the number of sequences, or a sequence shorter than the plan
// expects, is CodeInvalidArgument naming it; OutTokens shorter than the
// pack's real tokens is CodeOutOfRange. The slices cross for the
// call only (the shim builds libfrugal's argument struct in C).
func (p *PackPlan) Gather(pack int, args GatherArgs) error {
	if p.ptr == nil {
		return closedError("pack plan")
	}
	if pack < 0 {
		return &Error{Code: CodeOutOfRange, Message: "pack index out of range"}
	}
	if err := args.check(); err != nil {
		return err
	}
	var mask C.int32_t
	if args.MaskFirstLabel {
		mask = 1
	}
	return takeError(C.frugal_go_pack_gather(p.ptr, C.size_t(pack), (*C.int64_t)(firstOf(args.Tokens)),
		(*C.int64_t)(firstOf(args.SequenceOffsets)), C.size_t(len(args.SequenceOffsets)-1),
		(*C.int64_t)(firstOf(args.Labels)), (*C.int64_t)(firstOf(args.OutTokens)),
		(*C.int64_t)(firstOf(args.OutLabels)), C.size_t(len(args.OutTokens)), C.int64_t(args.PadToken),
		C.int64_t(args.IgnoreIndex), mask))
}
