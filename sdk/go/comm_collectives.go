package frugal

/*
#include "shim.h"
*/
import "C"

import "fmt"

// ReduceOp is an element-wise reduction (frugal_reduce_op_values). Sum,
// Max and Min take float32, float64, float16, bfloat16, int32 and int64;
// Max and Min also uint8. Any other pairing is CodeUnsupported naming the
// operation, the reduction and the dtype.
type ReduceOp int32

// Reductions, as numbered in frugal/comm_vtable.h.
const (
	// ReduceSum adds: floating point in the backend's order, integers wrap
	// as two's complement.
	ReduceSum ReduceOp = 1
	// ReduceMax keeps the largest (a NaN input gives an unspecified result).
	ReduceMax ReduceOp = 2
	// ReduceMin keeps the smallest (a NaN input gives an unspecified result).
	ReduceMin ReduceOp = 3
)

// String returns "sum", "max" or "min" as libfrugal's messages spell them,
// or "unknown".
func (op ReduceOp) String() string {
	switch op {
	case ReduceSum:
		return "sum"
	case ReduceMax:
		return "max"
	case ReduceMin:
		return "min"
	}
	return "unknown"
}

// The collectives below read and write Go slices (or C memory) in place
// during the call only. Tensors must be compact and of one dtype (send and
// recv the same), and send and recv must not overlap unless a method says
// it may run in place; libfrugal checks every call before any rank sends
// and names what is wrong (CodeInvalidArgument for sizes, dtypes and
// overlaps, CodeOutOfRange for parts outside their tensor or a root
// outside the group, CodeUnsupported for reductions). Counts and
// displacements are in elements, one per rank of the group.

// AllReduce writes into recv the element-wise reduction over every rank
// of send. send and recv have the same dtype and length. The zero Tensor
// as recv, or send itself, runs in place: send receives the result.
func (c *Comm) AllReduce(send, recv Tensor, op ReduceOp) error {
	if !recv.given() {
		recv = send
	}
	return c.collective(C.FRUGAL_COMM_ALL_REDUCE, "all_reduce", send, recv, int32(op), partArrays{})
}

// Broadcast makes every rank's buffer equal to rank root's. Any dtype; the
// length must agree on every rank.
func (c *Comm) Broadcast(buffer Tensor, root int) error {
	croot, err := int32Arg("broadcast: root", root)
	if err != nil {
		return err
	}
	return c.collective(C.FRUGAL_COMM_BROADCAST, "broadcast", Tensor{}, buffer, int32(croot), partArrays{})
}

// AllGather writes every rank's send into recv, concatenated in rank
// order. Any dtype; recv holds Size() times send's elements.
func (c *Comm) AllGather(send, recv Tensor) error {
	return c.collective(C.FRUGAL_COMM_ALL_GATHER, "all_gather", send, recv, 0, partArrays{})
}

// AllGatherV gathers parts of uneven lengths: rank r's send
// (recvCounts[r] elements) lands at element recvDispls[r] of recv.
// recvCounts has one entry per rank, and entry Rank() equals send's
// length. recvDispls nil packs the parts in rank order; otherwise every
// part lies inside recv and no two overlap. Elements of recv outside the
// parts are left as they were.
func (c *Comm) AllGatherV(send, recv Tensor, recvCounts, recvDispls []int) error {
	parts, err := c.parts("all_gather_v", nil, nil, recvCounts, recvDispls)
	if err != nil {
		return err
	}
	return c.collective(C.FRUGAL_COMM_ALL_GATHER_V, "all_gather_v", send, recv, 0, parts)
}

// ReduceScatter writes into recv on rank r the reduction over ranks of
// block r of send; send holds Size() times recv's elements. Reductions and
// dtypes as AllReduce.
func (c *Comm) ReduceScatter(send, recv Tensor, op ReduceOp) error {
	return c.collective(C.FRUGAL_COMM_REDUCE_SCATTER, "reduce_scatter", send, recv, int32(op), partArrays{})
}

// AllToAll exchanges equal blocks: block j of send goes to rank j, block i
// of recv comes from rank i. Any dtype; send and recv have the same
// length, a multiple of Size().
func (c *Comm) AllToAll(send, recv Tensor) error {
	return c.collective(C.FRUGAL_COMM_ALL_TO_ALL, "all_to_all", send, recv, 0, partArrays{})
}

// AllToAllV exchanges parts of uneven lengths (expert-parallel dispatch):
// sendCounts[j] elements at sendDispls[j] of send go to rank j, and
// recvCounts[i] elements from rank i land at recvDispls[i] of recv.
// Counts have one entry per rank and may be zero; what rank i sends to
// rank j must equal what rank j expects from rank i. Displacements nil
// pack the parts in rank order. Every part lies inside its tensor and
// received parts do not overlap; elements of recv outside them are left
// as they were.
func (c *Comm) AllToAllV(send Tensor, sendCounts, sendDispls []int, recv Tensor, recvCounts, recvDispls []int) error {
	parts, err := c.parts("all_to_all_v", sendCounts, sendDispls, recvCounts, recvDispls)
	if err != nil {
		return err
	}
	return c.collective(C.FRUGAL_COMM_ALL_TO_ALL_V, "all_to_all_v", send, recv, 0, parts)
}

// partArrays are the count and displacement arrays of a v-collective as
// size_t, each nil (NULL for C) when not given.
type partArrays struct {
	sendCounts, sendDispls, recvCounts, recvDispls []C.size_t
}

// parts converts the caller's arrays. A nil array stays NULL, for
// libfrugal to read as packed parts (displacements) or to refuse by name
// (counts); any other must hold one value per rank, each >= 0, since a
// negative int would wrap to a huge size_t.
func (c *Comm) parts(op string, sendCounts, sendDispls, recvCounts, recvDispls []int) (partArrays, error) {
	var p partArrays
	if c.ptr == nil {
		return p, closedError("comm")
	}
	for _, a := range []struct {
		name   string
		values []int
		out    *[]C.size_t
	}{{"send_counts", sendCounts, &p.sendCounts}, {"send_displs", sendDispls, &p.sendDispls},
		{"recv_counts", recvCounts, &p.recvCounts}, {"recv_displs", recvDispls, &p.recvDispls}} {
		if a.values == nil {
			continue
		}
		if len(a.values) != c.size {
			return p, &Error{Code: CodeInvalidArgument,
				Message: fmt.Sprintf("%s: %s has %d values for %d ranks", op, a.name, len(a.values), c.size)}
		}
		*a.out = make([]C.size_t, len(a.values))
		for r, v := range a.values {
			if v < 0 {
				return p, &Error{Code: CodeInvalidArgument,
					Message: fmt.Sprintf("%s: %s[%d] is %d; counts and displacements are >= 0", op, a.name, r, v)}
			}
			(*a.out)[r] = C.size_t(v)
		}
	}
	return p, nil
}

// firstSize is an array's first element for C, NULL for nil. The array is
// Go memory without pointers, which cgo lets cross as a direct argument.
func firstSize(a []C.size_t) *C.size_t {
	if a == nil {
		return nil
	}
	return &a[0]
}

// collective runs one comm operation with send in frame slot 0 and recv
// in slot 1, both required; broadcast has no send, its buffer is recv.
// The tensors are described in C memory and their data, like the part
// arrays, cross as direct arguments for this call only (shim.h).
func (c *Comm) collective(op C.int32_t, name string, send, recv Tensor, arg int32, parts partArrays) error {
	if c.ptr == nil {
		return closedError("comm")
	}
	f, err := newCallFrame()
	if err != nil {
		return err
	}
	defer f.free()
	if op != C.FRUGAL_COMM_BROADCAST {
		if err := f.set(0, send, name+": send", true); err != nil {
			return err
		}
	}
	recvRole := name + ": recv"
	if op == C.FRUGAL_COMM_BROADCAST {
		recvRole = name + ": buffer"
	}
	if err := f.set(1, recv, recvRole, true); err != nil {
		return err
	}
	return takeError(C.frugal_go_comm_call(op, c.ptr, f.c, f.data[0], f.data[1], C.int32_t(arg),
		firstSize(parts.sendCounts), firstSize(parts.sendDispls), firstSize(parts.recvCounts),
		firstSize(parts.recvDispls)))
}
