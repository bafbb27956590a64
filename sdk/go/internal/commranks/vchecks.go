package main

import (
	"fmt"

	frugal "frugal.invalid/sdk/go"
)

// The uneven collectives: each rank builds the counts and displacements
// every rank uses (they are a function of the ranks), packs its own
// parts, and computes what it must receive. Laid-out variants reverse the
// parts and leave a gap of one element after each, which must keep its
// -1: a binding that dropped the displacements would pack them instead.

// layout returns displacements placing parts of the given counts in
// reverse order with one unused element after each, and the extent.
func layout(counts []int) (displs []int, extent int) {
	displs = make([]int, len(counts))
	for p := len(counts) - 1; p >= 0; p-- {
		displs[p] = extent
		extent += counts[p] + 1
	}
	return displs, extent
}

// filled returns n copies of v.
func filled(n int, v float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// checkAllGatherV gathers r + 1 elements of value r from each rank r,
// packed in rank order, then laid out.
func checkAllGatherV(w *frugal.Comm) error {
	size, rank := w.Size(), w.Rank()
	counts := make([]int, size)
	var packed []int64
	for r := range counts {
		counts[r] = r + 1
		for k := 0; k <= r; k++ {
			packed = append(packed, int64(r))
		}
	}
	mine := make([]int64, rank+1)
	for k := range mine {
		mine[k] = int64(rank)
	}
	recv := make([]int64, len(packed))
	if err := w.AllGatherV(frugal.Int64s(mine), frugal.Int64s(recv), counts, nil); err != nil {
		return err
	}
	if err := equal("packed", recv, packed); err != nil {
		return err
	}
	displs, extent := layout(counts)
	laid := filled(extent, -1)
	want := filled(extent, -1)
	for r := range counts {
		for k := 0; k < counts[r]; k++ {
			want[displs[r]+k] = float32(r)
		}
	}
	if err := w.AllGatherV(frugal.Float32s(filled(rank+1, float32(rank))), frugal.Float32s(laid), counts, displs); err != nil {
		return err
	}
	return equal("laid out", laid, want)
}

// a2aCount is how many elements rank `from` sends rank `to`: 0, 1 or 2,
// so every group of two or more ranks has zero counts.
func a2aCount(from, to int) int { return (from + to) % 3 }

// a2aValue is what rank `from` sends rank `to`.
func a2aValue(from, to int) float32 { return float32(100*from + to) }

// checkAllToAllV exchanges a2aCount(r, p) elements of a2aValue(r, p),
// packed, then laid out on both sides.
func checkAllToAllV(w *frugal.Comm) error {
	size, rank := w.Size(), w.Rank()
	sendCounts, recvCounts := make([]int, size), make([]int, size)
	var send, want []float32
	for p := 0; p < size; p++ {
		sendCounts[p], recvCounts[p] = a2aCount(rank, p), a2aCount(p, rank)
		send = append(send, filled(sendCounts[p], a2aValue(rank, p))...)
		want = append(want, filled(recvCounts[p], a2aValue(p, rank))...)
	}
	recv := filled(len(want), -1)
	if err := w.AllToAllV(frugal.Float32s(send), sendCounts, nil, frugal.Float32s(recv), recvCounts, nil); err != nil {
		return err
	}
	if err := equal("packed", recv, want); err != nil {
		return fmt.Errorf("%w (send counts %v, recv counts %v)", err, sendCounts, recvCounts)
	}
	sendDispls, sendExtent := layout(sendCounts)
	recvDispls, recvExtent := layout(recvCounts)
	laidSend, laidRecv, laidWant := filled(sendExtent, -2), filled(recvExtent, -1), filled(recvExtent, -1)
	for p := 0; p < size; p++ {
		copy(laidSend[sendDispls[p]:], filled(sendCounts[p], a2aValue(rank, p)))
		copy(laidWant[recvDispls[p]:], filled(recvCounts[p], a2aValue(p, rank)))
	}
	if err := w.AllToAllV(frugal.Float32s(laidSend), sendCounts, sendDispls, frugal.Float32s(laidRecv), recvCounts,
		recvDispls); err != nil {
		return err
	}
	return equal("laid out", laidRecv, laidWant)
}
