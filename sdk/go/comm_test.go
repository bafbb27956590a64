package frugal

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// The collectives on the `local` backend, a group of one: every result is
// the input copied, so each test fills recv with something else first and
// checks that exactly the elements a call owns changed. Across ranks:
// comm_mpi_test.go. Argument checks and Close: comm_checks_test.go.

// newLocalComm returns a `local` comm closed when the test ends.
func newLocalComm(t *testing.T) *Comm {
	t.Helper()
	c, err := NewComm(newTestContext(t), "local", nil)
	if err != nil {
		t.Fatalf("NewComm(local): %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// everyDType is each dtype frugal/tensor.h numbers.
var everyDType = []DType{DTypeFloat32, DTypeFloat16, DTypeBFloat16, DTypeFloat64, DTypeFloat8E4M3FN,
	DTypeFloat8E5M2, DTypeFloat8E8M0, DTypeInt8, DTypeUint8, DTypeInt16, DTypeInt32, DTypeInt64, DTypeBool}

// reducible is what frugal/comm.h lets every reduction take.
var reducible = []DType{DTypeFloat32, DTypeFloat64, DTypeFloat16, DTypeBFloat16, DTypeInt32, DTypeInt64}

// tensorOf returns n elements of d over a Go slice of d's own element
// type (the constructor a user would pick), its bytes set by fill.
func tensorOf(d DType, n int, fill func(i int) byte) Tensor {
	var t Tensor
	switch d.Bits() {
	case 8:
		t = Bytes(d, make([]byte, n))
	case 16:
		t = Halves(d, make([]uint16, n))
	case 32:
		if d == DTypeFloat32 {
			t = Float32s(make([]float32, n))
		} else {
			t = Int32s(make([]int32, n))
		}
	case 64:
		if d == DTypeFloat64 {
			t = Float64s(make([]float64, n))
		} else {
			t = Int64s(make([]int64, n))
		}
	default:
		panic(fmt.Sprintf("no Go slice for dtype %v", d))
	}
	b := t.Bytes()
	for i := range b {
		b[i] = fill(i)
	}
	return t
}

// pattern gives distinct bytes (0 or 1 for bool, whose elements are 0 or 1).
func pattern(d DType, seed int) func(int) byte {
	if d == DTypeBool {
		return func(i int) byte { return byte((i + seed) % 2) }
	}
	return func(i int) byte { return byte(i*7 + seed*31 + 1) }
}

// constant fills every byte with v.
func constant(v byte) func(int) byte { return func(int) byte { return v } }

// wantBytes fails unless got equals want, naming what.
func wantBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Fatalf("%s:\n got %v\nwant %v", what, got, want)
	}
}

func TestLocalCommIsRankZeroOfOneOnTheCPU(t *testing.T) {
	c := newLocalComm(t)
	if c.Rank() != 0 || c.Size() != 1 || c.DeviceType() != DeviceCPU {
		t.Fatalf("rank %d of %d on %v, want 0 of 1 on the CPU", c.Rank(), c.Size(), c.DeviceType())
	}
	if DefaultCommTimeout != 300*time.Second {
		t.Errorf("DefaultCommTimeout = %v, want 300s", DefaultCommTimeout)
	}
	info, err := newTestContext(t).FindStrategy(KindComm, "local")
	must(t, err)
	if info.PluginName != "comm_local" || info.Kind != KindComm || KindComm.String() != "comm" {
		t.Errorf("FindStrategy(KindComm, local) = %+v, kind named %q", info, KindComm.String())
	}
}

func TestAllReduceTakesEveryReducibleDTypeWithEveryOp(t *testing.T) {
	c := newLocalComm(t)
	for _, d := range reducible {
		for _, op := range []ReduceOp{ReduceSum, ReduceMax, ReduceMin} {
			send := tensorOf(d, 12, pattern(d, int(op)))
			want := append([]byte(nil), send.Bytes()...)
			recv := tensorOf(d, 12, constant(0x5A))
			must(t, c.AllReduce(send, recv, op))
			wantBytes(t, fmt.Sprintf("%v %v into recv", op, d), recv.Bytes(), want)
			wantBytes(t, fmt.Sprintf("%v %v: send", op, d), send.Bytes(), want)
			// In place, with the zero Tensor and with send itself as recv.
			must(t, c.AllReduce(send, Tensor{}, op))
			must(t, c.AllReduce(send, send, op))
			wantBytes(t, fmt.Sprintf("%v %v in place", op, d), send.Bytes(), want)
		}
	}
}

func TestReductionsOnUint8AreMaxAndMinButNotSum(t *testing.T) {
	c := newLocalComm(t)
	codes := []uint8{0, 255, 3, 128, 7, 1}
	for _, op := range []ReduceOp{ReduceMax, ReduceMin} {
		out := make([]uint8, len(codes))
		must(t, c.AllReduce(Uint8s(codes), Uint8s(out), op))
		wantBytes(t, "uint8 "+op.String(), out, codes)
		block := make([]uint8, len(codes))
		must(t, c.ReduceScatter(Uint8s(codes), Uint8s(block), op))
		wantBytes(t, "uint8 reduce_scatter "+op.String(), block, codes)
	}
	out := []uint8{9, 9, 9, 9, 9, 9}
	wantError(t, c.AllReduce(Uint8s(codes), Uint8s(out), ReduceSum), CodeUnsupported,
		"all_reduce", "sum of uint8 is not supported")
	wantError(t, c.ReduceScatter(Uint8s(codes), Uint8s(out), ReduceSum), CodeUnsupported,
		"reduce_scatter", "sum of uint8 is not supported")
	wantBytes(t, "recv after refused sums", out, []uint8{9, 9, 9, 9, 9, 9})
	// Types no reduction takes are refused for each op, naming it.
	for _, d := range []DType{DTypeInt8, DTypeInt16, DTypeBool, DTypeFloat8E4M3FN, DTypeFloat8E5M2, DTypeFloat8E8M0} {
		for _, op := range []ReduceOp{ReduceSum, ReduceMax, ReduceMin} {
			x := tensorOf(d, 4, pattern(d, 0))
			wantError(t, c.AllReduce(x, Tensor{}, op), CodeUnsupported, "all_reduce", op.String()+" of "+d.String())
		}
	}
}

func TestCopyCollectivesTakeEveryDType(t *testing.T) {
	c := newLocalComm(t)
	for _, d := range everyDType {
		send := tensorOf(d, 10, pattern(d, 1))
		want := send.Bytes()
		for name, run := range map[string]func(recv Tensor) error{
			"all_gather": func(recv Tensor) error { return c.AllGather(send, recv) },
			"all_to_all": func(recv Tensor) error { return c.AllToAll(send, recv) },
		} {
			recv := tensorOf(d, 10, constant(0))
			must(t, run(recv))
			wantBytes(t, name+" of "+d.String(), recv.Bytes(), want)
		}
		buffer := tensorOf(d, 10, pattern(d, 2))
		before := append([]byte(nil), buffer.Bytes()...)
		must(t, c.Broadcast(buffer, 0))
		wantBytes(t, "broadcast of "+d.String(), buffer.Bytes(), before)
	}
	for _, d := range reducible {
		send := tensorOf(d, 6, pattern(d, 3))
		recv := tensorOf(d, 6, constant(0x11))
		must(t, c.ReduceScatter(send, recv, ReduceSum))
		wantBytes(t, "reduce_scatter of "+d.String(), recv.Bytes(), send.Bytes())
	}
	must(t, c.Barrier())
}

func TestVCollectivesHonourCountsAndDisplacements(t *testing.T) {
	c := newLocalComm(t)
	for _, d := range everyDType {
		elem := d.Bits() / 8
		send := tensorOf(d, 8, pattern(d, 4))
		// Three elements from send[4:] land at recv[2:]; the rest of recv
		// keeps its 0xEE (0x01 for bool) bytes.
		keep := byte(0xEE)
		if d == DTypeBool {
			keep = 1
		}
		recv := tensorOf(d, 8, constant(keep))
		must(t, c.AllToAllV(send, []int{3}, []int{4}, recv, []int{3}, []int{2}))
		want := bytes.Repeat([]byte{keep}, 8*elem)
		copy(want[2*elem:5*elem], send.Bytes()[4*elem:7*elem])
		wantBytes(t, "all_to_all_v of "+d.String(), recv.Bytes(), want)

		// Four elements gathered at element 5 of a recv of ten.
		part := tensorOf(d, 4, pattern(d, 5))
		gathered := tensorOf(d, 10, constant(keep))
		must(t, c.AllGatherV(part, gathered, []int{4}, []int{5}))
		want = bytes.Repeat([]byte{keep}, 10*elem)
		copy(want[5*elem:9*elem], part.Bytes())
		wantBytes(t, "all_gather_v of "+d.String(), gathered.Bytes(), want)
	}
	// No displacements: packed parts, from element 0.
	x := []float32{1.5, -2, 3.25, 4, 5}
	packed := []float32{-1, -1, -1, -1, -1, -1}
	must(t, c.AllGatherV(Float32s(x[:3]), Float32s(packed), []int{3}, nil))
	must(t, c.AllToAllV(Float32s(x), []int{2}, nil, Float32s(packed[3:]), []int{2}, nil))
	if want := []float32{1.5, -2, 3.25, 1.5, -2, -1}; fmt.Sprint(packed) != fmt.Sprint(want) {
		t.Fatalf("packed parts = %v, want %v", packed, want)
	}
	// Zero counts move nothing, and an empty send is allowed.
	untouched := []int64{7, 7, 7, 7}
	must(t, c.AllToAllV(Int64s(nil), []int{0}, nil, Int64s(untouched), []int{0}, nil))
	must(t, c.AllToAllV(Int64s([]int64{1, 2}), []int{0}, []int{2}, Int64s(untouched), []int{0}, []int{4}))
	if fmt.Sprint(untouched) != "[7 7 7 7]" {
		t.Fatalf("zero counts wrote %v", untouched)
	}
}

func TestCollectivesReadCMemoryAndShapedTensors(t *testing.T) {
	c := newLocalComm(t)
	ct, err := NewCTensor(DTypeFloat64, 2, 3)
	must(t, err)
	defer ct.Close()
	copy(ct.Tensor().Float64s(), []float64{1, -2, 3.5, 4, 5e10, -6})
	out := make([]float64, 6)
	must(t, c.AllReduce(ct.Tensor(), Float64s(out, 3, 2), ReduceMax)) // shapes differ, element counts agree
	if fmt.Sprint(out) != "[1 -2 3.5 4 5e+10 -6]" {
		t.Fatalf("all_reduce from C memory = %v", out)
	}
	must(t, c.Broadcast(ct.Tensor(), 0))
	if got := ct.Tensor().Float64s(); got[4] != 5e10 {
		t.Fatalf("broadcast changed C memory: %v", got)
	}
}

func TestSplitGivesAGroupOfOneOrNone(t *testing.T) {
	c := newLocalComm(t)
	none, err := c.Split(ColorNone, 0)
	if err != nil || none != nil {
		t.Fatalf("Split(ColorNone) = %v, %v; want nil, nil", none, err)
	}
	sub, err := c.Split(3, 9)
	must(t, err)
	defer sub.Close()
	if sub.Rank() != 0 || sub.Size() != 1 || sub.DeviceType() != DeviceCPU {
		t.Fatalf("sub-group: rank %d of %d on %v", sub.Rank(), sub.Size(), sub.DeviceType())
	}
	in, out := []int32{4, -5, 6}, []int32{0, 0, 0}
	must(t, sub.AllReduce(Int32s(in), Int32s(out), ReduceSum))
	if fmt.Sprint(out) != "[4 -5 6]" {
		t.Fatalf("sub-group all_reduce = %v", out)
	}
	// The sub-group is a handle of its own: closing it leaves the parent.
	must(t, sub.Close())
	wantError(t, sub.Barrier(), CodeFailedPrecondition, "closed")
	must(t, c.Barrier())
	_, err = c.Split(-7, 0)
	wantError(t, err, CodeInvalidArgument, "split", "color -7 is negative", "FRUGAL_COMM_COLOR_NONE")
	_, err = c.Split(1<<40, 0)
	wantError(t, err, CodeOutOfRange, "split: color", "does not fit int32")
}

func TestSetTimeoutTakesPositiveDurations(t *testing.T) {
	c := newLocalComm(t)
	wantError(t, c.SetTimeout(0), CodeInvalidArgument, "timeout_ms is 0; expected > 0")
	wantError(t, c.SetTimeout(-2*time.Second), CodeInvalidArgument, "timeout_ms is -2000")
	must(t, c.SetTimeout(time.Microsecond)) // rounded up to 1 ms, not down to 0
	must(t, c.SetTimeout(1500*time.Millisecond))
	x := []float32{1, 2}
	must(t, c.AllReduce(Float32s(x), Tensor{}, ReduceSum))
}
