package frugal

/*
#include "frugal/packer.h"
*/
import "C"

// PackStream packs sequences as a loader produces them, with a packer's
// strategy and limits: it holds at most `window` units; when the window is
// full it packs them, makes the fullest packs ready and keeps the
// emptiest (at most half the window) to combine with later arrivals. A
// unit is made ready after at most `max_rounds` packing rounds. Every
// pushed sequence comes out of Pop exactly once (as one unit, or as
// several pieces with overlong = "split"); Flush packs whatever is held.
//
// Ownership: created by NewPackStream, released by Close, which discards
// held units. It keeps what it needs of the packer, which may be closed
// first; plans from Pop are independent of it.
//
// Thread safety: none; one goroutine at a time.
type PackStream struct {
	_ noCopy
	*packStreamHandle
}

// packStreamHandle owns the C object; every copy of a
// PackStream shares it (handle.go).
type packStreamHandle struct {
	ptr *C.frugal_pack_stream
}

// NewPackStream creates a stream packing with packer's strategy. opts (nil
// for defaults; read during the call only): window (int >= 1, 4096: units
// held at most), max_rounds (int >= 1, 4).
func NewPackStream(packer *Packer, opts *Options) (*PackStream, error) {
	if packer == nil || packer.ptr == nil {
		return nil, closedError("packer")
	}
	copts, err := optionsArg(opts)
	if err != nil {
		return nil, err
	}
	var out *C.frugal_pack_stream
	if err := takeError(C.frugal_pack_stream_create(packer.ptr, copts, &out)); err != nil {
		return nil, err
	}
	return &PackStream{packStreamHandle: &packStreamHandle{ptr: out}}, nil
}

// Push adds sequence sequenceID (any value: typically its dataset index,
// which Gather then uses to index the caller's arrays) of length tokens.
// The overlong policy applies. It packs when the window fills; a packing
// error is returned here and leaves the window as it was.
func (s *PackStream) Push(sequenceID, length int64) error {
	if s.ptr == nil {
		return closedError("pack stream")
	}
	return takeError(C.frugal_pack_stream_push(s.ptr, C.int64_t(sequenceID), C.int64_t(length)))
}

// Flush packs everything still held (at the end of an epoch, say), so that
// the next Pop hands out every unit pushed so far. The stream stays
// usable.
func (s *PackStream) Flush() error {
	if s.ptr == nil {
		return closedError("pack stream")
	}
	return takeError(C.frugal_pack_stream_flush(s.ptr))
}

// Pop takes the packs ready so far as a plan, possibly with zero packs;
// its stats cover those packs only and its sequence ids are the ids given
// to Push.
func (s *PackStream) Pop() (*PackPlan, error) {
	if s.ptr == nil {
		return nil, closedError("pack stream")
	}
	var out *C.frugal_pack_plan
	if err := takeError(C.frugal_pack_stream_pop(s.ptr, &out)); err != nil {
		return nil, err
	}
	return newPackPlan(out)
}

// Pending returns the units held in the window and the packs ready to pop.
func (s *PackStream) Pending() (held, ready int, err error) {
	if s.ptr == nil {
		return 0, 0, closedError("pack stream")
	}
	var h, r C.size_t
	if err := takeError(C.frugal_pack_stream_pending(s.ptr, &h, &r)); err != nil {
		return 0, 0, err
	}
	return int(h), int(r), nil
}

// Close destroys the stream, discarding held units. Calling it again does
// nothing.
func (s *PackStream) Close() error {
	if s.ptr != nil {
		C.frugal_pack_stream_destroy(s.ptr)
		s.ptr = nil
	}
	return nil
}
