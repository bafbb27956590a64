package main

import (
	"fmt"

	frugal "frugal.invalid/sdk/go"
)

// check is one collective run on every rank; it returns a mismatch
// against what this rank computed for itself, or the call's error.
type check struct {
	name string
	run  func(w *frugal.Comm) error
}

// checks run in this order on every rank: collectives must match across
// ranks call for call.
var checks = []check{
	{"all_reduce", checkAllReduce},
	{"all_reduce in place", checkAllReduceInPlace},
	{"all_reduce uint8", checkUint8},
	{"broadcast", checkBroadcast},
	{"all_gather", checkAllGather},
	{"all_gather_v", checkAllGatherV},
	{"reduce_scatter", checkReduceScatter},
	{"all_to_all", checkAllToAll},
	{"all_to_all_v", checkAllToAllV},
	{"split", checkSplit},
}

// equal reports the first element where got differs from want.
func equal[T comparable](what string, got, want []T) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d elements, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Errorf("%s: element %d is %v, want %v (got %v, want %v)", what, i, got[i], want[i], got, want)
		}
	}
	return nil
}

// reduce folds one value per rank as op does.
func reduce(op frugal.ReduceOp, size int, value func(rank int) float64) float64 {
	acc := value(0)
	for r := 1; r < size; r++ {
		v := value(r)
		switch {
		case op == frugal.ReduceSum:
			acc += v
		case op == frugal.ReduceMax && v > acc, op == frugal.ReduceMin && v < acc:
			acc = v
		}
	}
	return acc
}

// contribution is element i of rank r's send in the reduction checks:
// distinct per rank, negative at odd i, small enough for every dtype.
func contribution(r, i int) float64 {
	v := float64((r + 1) * (i + 1))
	if i%2 == 1 {
		return -v
	}
	return v
}

// checkAllReduce reduces into a separate recv, for every reducible dtype
// and reduction.
func checkAllReduce(w *frugal.Comm) error {
	const n = 5
	for _, d := range []frugal.DType{frugal.DTypeFloat32, frugal.DTypeFloat64, frugal.DTypeFloat16,
		frugal.DTypeBFloat16, frugal.DTypeInt32, frugal.DTypeInt64} {
		for _, op := range []frugal.ReduceOp{frugal.ReduceSum, frugal.ReduceMax, frugal.ReduceMin} {
			send, recv := newNumbers(d, n), newNumbers(d, n)
			for i := 0; i < n; i++ {
				send.set(i, contribution(w.Rank(), i))
				recv.set(i, 99)
			}
			if err := w.AllReduce(send.t, recv.t, op); err != nil {
				return err
			}
			for i := 0; i < n; i++ {
				want := reduce(op, w.Size(), func(r int) float64 { return contribution(r, i) })
				if got := recv.get(i); got != want {
					return fmt.Errorf("%v of %v: element %d is %v, want %v", op, d, i, got, want)
				}
				if got := send.get(i); got != contribution(w.Rank(), i) {
					return fmt.Errorf("%v of %v changed send element %d to %v", op, d, i, got)
				}
			}
		}
	}
	return nil
}

// checkAllReduceInPlace sums in place, with the zero Tensor as recv.
func checkAllReduceInPlace(w *frugal.Comm) error {
	x := make([]float64, 10)
	want := make([]float64, 10)
	for i := range x {
		x[i] = float64(i + w.Rank())
		want[i] = float64(w.Size()*i + w.Size()*(w.Size()-1)/2)
	}
	if err := w.AllReduce(frugal.Float64s(x), frugal.Tensor{}, frugal.ReduceSum); err != nil {
		return err
	}
	return equal("sum", x, want)
}

// checkUint8 takes the maximum and minimum of bytes (uint8 has no sum).
func checkUint8(w *frugal.Comm) error {
	value := func(r, i int) float64 { return float64((r*97 + i*41 + 3) % 256) }
	for _, op := range []frugal.ReduceOp{frugal.ReduceMax, frugal.ReduceMin} {
		codes := newNumbers(frugal.DTypeUint8, 8)
		for i := 0; i < 8; i++ {
			codes.set(i, value(w.Rank(), i))
		}
		if err := w.AllReduce(codes.t, codes.t, op); err != nil {
			return err
		}
		for i := 0; i < 8; i++ {
			if want := reduce(op, w.Size(), func(r int) float64 { return value(r, i) }); codes.get(i) != want {
				return fmt.Errorf("%v: element %d is %v, want %v", op, i, codes.get(i), want)
			}
		}
	}
	return nil
}

// checkBroadcast sends the last rank's buffer, then rank 0's.
func checkBroadcast(w *frugal.Comm) error {
	last := w.Size() - 1
	b := []float32{float32(w.Rank()), float32(w.Rank()), -1, float32(10 * w.Rank())}
	if err := w.Broadcast(frugal.Float32s(b), last); err != nil {
		return err
	}
	if err := equal("from the last rank", b, []float32{float32(last), float32(last), -1, float32(10 * last)}); err != nil {
		return err
	}
	ids := []int64{int64(w.Rank()) + 7, 3}
	if err := w.Broadcast(frugal.Int64s(ids), 0); err != nil {
		return err
	}
	return equal("from rank 0", ids, []int64{7, 3})
}

// checkAllGather concatenates [10 r, 10 r + 1] in rank order.
func checkAllGather(w *frugal.Comm) error {
	recv := make([]int64, 2*w.Size())
	var want []int64
	for r := 0; r < w.Size(); r++ {
		want = append(want, int64(10*r), int64(10*r+1))
	}
	send := []int64{int64(10 * w.Rank()), int64(10*w.Rank() + 1)}
	if err := w.AllGather(frugal.Int64s(send), frugal.Int64s(recv)); err != nil {
		return err
	}
	return equal("recv", recv, want)
}

// checkReduceScatter sums arange(2 size) + rank: block r of the sum is
// size * [2r, 2r + 1] + size (size - 1) / 2; then the maximum in int32.
func checkReduceScatter(w *frugal.Comm) error {
	size, rank := w.Size(), w.Rank()
	send := make([]float32, 2*size)
	for i := range send {
		send[i] = float32(i + rank)
	}
	block := []float32{-1, -1}
	if err := w.ReduceScatter(frugal.Float32s(send), frugal.Float32s(block), frugal.ReduceSum); err != nil {
		return err
	}
	offset := float32(size * (size - 1) / 2)
	if err := equal("sum", block, []float32{float32(size*2*rank) + offset, float32(size*(2*rank+1)) + offset}); err != nil {
		return err
	}
	// Rank r sends r * (i + 1) at i: the maximum of block b is
	// (size - 1) * (i + 1) for its two elements i = 2b, 2b + 1.
	ints := make([]int32, 2*size)
	for i := range ints {
		ints[i] = int32(rank * (i + 1))
	}
	got := []int32{-1, -1}
	if err := w.ReduceScatter(frugal.Int32s(ints), frugal.Int32s(got), frugal.ReduceMax); err != nil {
		return err
	}
	return equal("max", got, []int32{int32((size - 1) * (2*rank + 1)), int32((size - 1) * (2*rank + 2))})
}

// checkAllToAll sends block j = [100 r + j, -(100 r + j)] to rank j, so
// block i received is [100 i + r, -(100 i + r)].
func checkAllToAll(w *frugal.Comm) error {
	size, rank := w.Size(), w.Rank()
	send := make([]int32, 0, 2*size)
	want := make([]int32, 0, 2*size)
	for p := 0; p < size; p++ {
		send = append(send, int32(100*rank+p), -int32(100*rank+p))
		want = append(want, int32(100*p+rank), -int32(100*p+rank))
	}
	recv := make([]int32, 2*size)
	if err := w.AllToAll(frugal.Int32s(send), frugal.Int32s(recv)); err != nil {
		return err
	}
	return equal("recv", recv, want)
}
