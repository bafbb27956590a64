package frugal

import (
	"fmt"
	"testing"
)

// What a comm refuses: the core's checks of each call (reported with the
// comm's label, by code and message), the binding's own checks of what C
// could not see (slice lengths, negative counts, ints beyond int32), and
// every call on a closed comm. A refused call writes nothing.

func TestTheCoreNamesABadCollective(t *testing.T) {
	c := newLocalComm(t)
	four := []float32{1, 2, 3, 4}
	three, eight := make([]float32, 3), make([]float32, 8)
	wantError(t, c.AllReduce(Float32s(four), Float64s(make([]float64, 4)), ReduceSum), CodeInvalidArgument,
		"comm 'local'", "all_reduce", "send has dtype float32 and recv dtype float64")
	wantError(t, c.AllReduce(Float32s(four), Float32s(three), ReduceSum), CodeInvalidArgument,
		"comm 'local' (rank 0 of 1)", "all_reduce: recv has 3 elements; expected 4")
	wantError(t, c.AllReduce(Float32s(four), Tensor{}, ReduceOp(9)), CodeInvalidArgument,
		"reduce_op 9 is not a frugal_reduce_op_values value")
	wantError(t, c.AllGather(Float32s(four), Float32s(eight)), CodeInvalidArgument,
		"all_gather: recv has 8 elements; expected 4")
	wantError(t, c.ReduceScatter(Float32s(eight), Float32s(four), ReduceMax), CodeInvalidArgument,
		"reduce_scatter: send has 8 elements; expected 4")
	// Only all_reduce runs in place, and only on the same memory.
	wantError(t, c.AllGather(Float32s(eight), Float32s(eight)), CodeInvalidArgument,
		"all_gather: send and recv overlap")
	wantError(t, c.AllReduce(Float32s(eight[:3]), Float32s(eight[1:4]), ReduceSum), CodeInvalidArgument,
		"send and recv overlap", "in place means the same memory")
	wantError(t, c.Broadcast(Float32s(eight), 1), CodeOutOfRange,
		"broadcast: root 1 is outside the group's ranks 0..0")
	wantError(t, c.Broadcast(Float32s(eight), -1), CodeOutOfRange, "root -1")
	for _, v := range append(three, eight...) {
		if v != 0 {
			t.Fatalf("a refused call wrote %v into recv", append(three, eight...))
		}
	}
	if fmt.Sprint(four) != "[1 2 3 4]" {
		t.Fatalf("a refused call wrote into send: %v", four)
	}
}

func TestTheCoreChecksCountsAndDisplacements(t *testing.T) {
	c := newLocalComm(t)
	four, eight := Float32s([]float32{1, 2, 3, 4}), Float32s(make([]float32, 8))
	wantError(t, c.AllToAllV(four, []int{5}, nil, eight, []int{5}, nil), CodeOutOfRange,
		"all_to_all_v: send part 0 (elements 0..5) lies outside its 4 elements")
	wantError(t, c.AllToAllV(four, []int{4}, []int{1}, eight, []int{4}, nil), CodeOutOfRange,
		"send part 0 (elements 1..5)")
	wantError(t, c.AllToAllV(four, []int{4}, nil, eight, []int{4}, []int{6}), CodeOutOfRange,
		"recv part 0 (elements 6..10) lies outside its 8 elements")
	wantError(t, c.AllToAllV(four, []int{4}, nil, eight, []int{3}, nil), CodeInvalidArgument,
		"comm 'local'", "sends 4 elements to itself but expects 3")
	// nil counts reach C as NULL, which the core refuses by name.
	wantError(t, c.AllToAllV(four, nil, nil, eight, []int{4}, nil), CodeInvalidArgument, "send_counts is NULL")
	wantError(t, c.AllToAllV(four, []int{4}, nil, eight, nil, nil), CodeInvalidArgument, "recv_counts is NULL")
	wantError(t, c.AllGatherV(four, eight, nil, nil), CodeInvalidArgument, "all_gather_v", "recv_counts is NULL")
	wantError(t, c.AllGatherV(four, eight, []int{3}, nil), CodeInvalidArgument,
		"recv_counts[0] (this rank) is 3, but send has 4 elements")
	wantError(t, c.AllGatherV(four, eight, []int{4}, []int{5}), CodeOutOfRange,
		"all_gather_v: recv part 0 (elements 5..9) lies outside its 8 elements")
	for _, v := range eight.Float32s() {
		if v != 0 {
			t.Fatalf("a refused call wrote into recv: %v", eight.Float32s())
		}
	}
}

func TestTheBindingChecksWhatCCannotSee(t *testing.T) {
	c := newLocalComm(t)
	four, eight := Float32s([]float32{1, 2, 3, 4}), Float32s(make([]float32, 8))
	// One value per rank: a longer array would be read past by nobody, a
	// shorter one past its end by C.
	wantError(t, c.AllToAllV(four, []int{1, 2}, nil, eight, []int{3}, nil), CodeInvalidArgument,
		"all_to_all_v: send_counts has 2 values for 1 ranks")
	wantError(t, c.AllToAllV(four, []int{4}, nil, eight, []int{4}, []int{}), CodeInvalidArgument,
		"recv_displs has 0 values for 1 ranks")
	wantError(t, c.AllGatherV(four, eight, []int{4}, []int{-1}), CodeInvalidArgument,
		"all_gather_v: recv_displs[0] is -1")
	wantError(t, c.AllToAllV(four, []int{-4}, nil, eight, []int{4}, nil), CodeInvalidArgument,
		"send_counts[0] is -4")
	// A tensor's shape must match its slice, and a tensor is required.
	wantError(t, c.AllReduce(Float32s([]float32{1, 2}, 3), Tensor{}, ReduceSum), CodeInvalidArgument,
		"all_reduce: send: shape [3] of float32 needs 12 bytes, its memory holds 8")
	wantError(t, c.AllGather(Tensor{}, eight), CodeInvalidArgument, "all_gather: send: a tensor is required")
	wantError(t, c.Broadcast(Tensor{}, 0), CodeInvalidArgument, "broadcast: buffer: a tensor is required")
	wantError(t, c.AllToAll(four, Tensor{}), CodeInvalidArgument, "all_to_all: recv: a tensor is required")
	// A root beyond int32 must not wrap into a valid rank (1<<32 would be 0).
	wantError(t, c.Broadcast(eight, 1<<32), CodeOutOfRange, "broadcast: root 4294967296 does not fit int32")
	_, err := c.Split(0, -1<<33)
	wantError(t, err, CodeOutOfRange, "split: key")
}

func TestEveryCallOnAClosedCommIsRefused(t *testing.T) {
	c := newLocalComm(t)
	must(t, c.Close())
	must(t, c.Close())
	x, y := Float32s([]float32{1}), Float32s([]float32{0})
	_, splitErr := c.Split(0, 0)
	for name, err := range map[string]error{
		"AllReduce": c.AllReduce(x, y, ReduceSum), "Broadcast": c.Broadcast(x, 0), "AllGather": c.AllGather(x, y),
		"AllGatherV":    c.AllGatherV(x, y, []int{1, 2}, nil), // closed comes first, before the arrays
		"ReduceScatter": c.ReduceScatter(x, y, ReduceSum), "AllToAll": c.AllToAll(x, y),
		"AllToAllV": c.AllToAllV(x, []int{1}, nil, y, []int{1}, nil), "Barrier": c.Barrier(),
		"SetTimeout": c.SetTimeout(1), "Split": splitErr, "Options.SetComm": newTestOptions(t).SetComm("comm", c),
	} {
		t.Run(name, func(t *testing.T) { wantError(t, err, CodeFailedPrecondition, "comm is closed") })
	}
	// What never changes for a comm is still known.
	if c.Rank() != 0 || c.Size() != 1 || c.DeviceType() != DeviceCPU {
		t.Errorf("after Close: rank %d of %d on %v", c.Rank(), c.Size(), c.DeviceType())
	}
	if y.Float32s()[0] != 0 {
		t.Errorf("a closed comm wrote %v", y.Float32s())
	}
}

func TestNewCommNamesWhatIsWrong(t *testing.T) {
	ctx := newTestContext(t)
	_, err := NewComm(ctx, "no_such_backend", nil)
	wantError(t, err, CodeNotFound, "no_such_backend")
	opts := newTestOptions(t)
	must(t, opts.Close())
	_, err = NewComm(ctx, "local", opts)
	wantError(t, err, CodeFailedPrecondition, "options is closed")
	must(t, ctx.Close())
	_, err = NewComm(ctx, "local", nil)
	wantError(t, err, CodeFailedPrecondition, "context is closed")
	_, err = NewComm(nil, "local", nil)
	wantError(t, err, CodeFailedPrecondition, "context is closed")
}
