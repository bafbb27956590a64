package frugal

// ABI 2.4 across ranks, in one process over a "local" comm (a group of
// one): a router with ep_comm dispatches and combines exactly as the same
// router without one permutes and combines, a scheduler with a comm
// decides as one without, and a quantizer with amax_comm quantizes as one
// without.

import (
	"bytes"
	"math"
	"reflect"
	"testing"
)

const epTokens, epHidden = 48, 16

// newEpRouter makes router `name` with testExperts experts (k 2 for token
// choice; capacity 1 for topk_softmax, so rows are dropped), with ep_comm
// when comm is not nil.
func newEpRouter(t *testing.T, ctx *Context, name string, comm *Comm) *Router {
	t.Helper()
	opts := newTestOptions(t)
	must(t, opts.SetInt("experts", testExperts))
	switch name {
	case "topk_softmax":
		must(t, opts.SetInt("k", testTopK))
		must(t, opts.SetDouble("capacity_factor", 1))
	case "deepseek_v3":
		must(t, opts.SetInt("k", testTopK))
	}
	if comm != nil {
		must(t, opts.SetComm("ep_comm", comm))
	}
	r, err := NewRouter(ctx, name, opts)
	if err != nil {
		t.Fatalf("NewRouter(%s): %v", name, err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestEpDispatchAndCombineOfOneRankEqualPermuteAndCombine(t *testing.T) {
	ctx := newTestContext(t)
	comm := newLocalComm(t)
	logits := Float32s(uniformFloats(11, epTokens*testExperts, 4), epTokens, testExperts)
	xs := uniformFloats(3, epTokens*epHidden, 1)
	x := Float32s(xs, epTokens, epHidden)
	for _, name := range []string{"topk_softmax", "deepseek_v3", "expert_choice"} {
		grouped := newEpRouter(t, ctx, name, comm)
		alone := newEpRouter(t, ctx, name, nil)
		if l := grouped.Layout(); l.EpRank != 0 || l.EpRanks != 1 {
			t.Fatalf("%s: grouped layout %+v", name, l)
		}
		if l := alone.Layout(); l.EpRank != 0 || l.EpRanks != 0 {
			t.Fatalf("%s: plain layout %+v", name, l)
		}
		plan, err := grouped.NewPlan(epTokens)
		must(t, err)
		ref, err := alone.NewPlan(epTokens)
		must(t, err)
		if ref.EpTokens.given() || ref.EpRows.given() {
			t.Fatalf("%s: a plan without ep_comm has ep members", name)
		}
		must(t, grouped.Route(logits, plan))
		must(t, alone.Route(logits, ref))
		offsets := ref.ExpertOffsets.Int64s()
		kept := offsets[testExperts]
		loads := make([]int64, testExperts)
		for e := range loads {
			loads[e] = offsets[e+1] - offsets[e]
		}
		if got := plan.EpTokens.Int64s(); !reflect.DeepEqual(got, []int64{epTokens}) {
			t.Fatalf("%s: ep_tokens %v", name, got)
		}
		if got := plan.EpRows.Int64s(); !reflect.DeepEqual(got, loads) {
			t.Fatalf("%s: ep_rows %v, want %v", name, got, loads)
		}

		shape, err := grouped.EpShape(plan)
		must(t, err)
		want := RouteEpShape{Rank: 0, Ranks: 1, FirstExpert: 0, LocalExperts: testExperts, GroupTokens: epTokens,
			TokenOffset: 0, SentRows: kept, ReceivedRows: kept}
		if shape != want {
			t.Fatalf("%s: ep shape %+v, want %+v", name, shape, want)
		}

		// The plain path: permute into R rows, combine back.
		maxRows := ref.RowToken.Shape()[0]
		permuted := make([]float32, maxRows*epHidden)
		must(t, alone.Permute(ref, x, Float32s(permuted, maxRows, epHidden)))
		combined := make([]float32, epTokens*epHidden)
		must(t, alone.Combine(ref, Float32s(permuted, maxRows, epHidden), Float32s(combined, epTokens, epHidden)))

		// The expert-parallel path over a group of one.
		received := shape.ReceivedRows
		rows := make([]float32, received*epHidden)
		gotOffsets := make([]int64, shape.LocalExperts+1)
		rowToken := make([]int64, received)
		must(t, grouped.EpDispatch(plan, x, Float32s(rows, received, epHidden), Int64s(gotOffsets), Int64s(rowToken)))
		if !reflect.DeepEqual(rows, permuted[:kept*epHidden]) {
			t.Fatalf("%s: dispatched rows differ from the permuted ones", name)
		}
		if !reflect.DeepEqual(gotOffsets, offsets) {
			t.Fatalf("%s: expert offsets %v, want %v", name, gotOffsets, offsets)
		}
		if want := ref.RowToken.Int64s()[:kept]; !reflect.DeepEqual(rowToken, want) {
			t.Fatalf("%s: row_token %v, want %v", name, rowToken, want)
		}
		y := make([]float32, epTokens*epHidden)
		for i := range y {
			y[i] = float32(math.NaN())
		}
		must(t, grouped.EpCombine(plan, Float32s(rows, received, epHidden), Float32s(y, epTokens, epHidden)))
		for i := range y {
			if math.Float32bits(y[i]) != math.Float32bits(combined[i]) {
				t.Fatalf("%s: element %d: ep_combine %v, combine %v (bit for bit)", name, i, y[i], combined[i])
			}
		}
		// The index outputs are optional.
		must(t, grouped.EpDispatch(plan, x, Float32s(rows, received, epHidden), Tensor{}, Tensor{}))
	}
}

func TestRouterWithoutEpCommHasNoEpShape(t *testing.T) {
	ctx := newTestContext(t)
	r := newEpRouter(t, ctx, "topk_softmax", nil)
	plan, err := r.NewPlan(epTokens)
	must(t, err)
	must(t, r.Route(Float32s(uniformFloats(11, epTokens*testExperts, 4), epTokens, testExperts), plan))
	_, err = r.EpShape(plan)
	wantError(t, err, CodeFailedPrecondition, "ep_comm")
}

func TestSchedulerAcrossOneRankDecidesAsOneProcess(t *testing.T) {
	ctx := newTestContext(t)
	comm := newLocalComm(t)
	newScheduler := func(comm *Comm) *Scheduler {
		cadence := newTestOptions(t)
		must(t, cadence.SetDouble("heartbeat_interval_s", 60))
		s, err := NewScheduler(ctx, SchedulerConfig{
			Schedule:        "cosine",
			ScheduleOptions: cosineOptions(t),
			Policies:        []PolicyConfig{{Name: "checkpoint_cadence", Options: cadence}},
			Comm:            comm,
		})
		if err != nil {
			t.Fatalf("NewScheduler: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	grouped, alone := newScheduler(comm), newScheduler(nil)
	must(t, comm.Close()) // the scheduler keeps a sub-group of its own
	for i := 1; i <= 20; i++ {
		a, err := grouped.Step(record(i))
		must(t, err)
		b, err := alone.Step(record(i))
		must(t, err)
		if a != b {
			t.Fatalf("record %d: %+v across one rank, %+v alone", i, a, b)
		}
	}
	la, err := grouped.Ledger()
	must(t, err)
	lb, err := alone.Ledger()
	must(t, err)
	if la != lb {
		t.Fatalf("ledgers differ: %+v vs %+v", la, lb)
	}
	sa, err := grouped.ExportState()
	must(t, err)
	sb, err := alone.ExportState()
	must(t, err)
	if !bytes.Equal(sa, sb) {
		t.Fatalf("states differ")
	}
	// A closed comm is refused.
	_, err = NewScheduler(ctx, SchedulerConfig{Comm: comm})
	wantError(t, err, CodeFailedPrecondition, "comm")
}

func TestAmaxCommOfOneRankChangesNothing(t *testing.T) {
	ctx := newTestContext(t)
	comm := newLocalComm(t)
	for _, recipe := range []string{"delayed", "current"} {
		newQuantizer := func(comm *Comm) *Quantizer {
			opts := newTestOptions(t)
			must(t, opts.SetString("format", "e4m3"))
			must(t, opts.SetString("recipe", recipe))
			if comm != nil {
				must(t, opts.SetComm("amax_comm", comm))
			}
			q, err := NewQuantizer(ctx, "quant_fp8", opts)
			if err != nil {
				t.Fatalf("NewQuantizer(%s): %v", recipe, err)
			}
			t.Cleanup(func() { q.Close() })
			return q
		}
		grouped, alone := newQuantizer(comm), newQuantizer(nil)
		const n = 256
		for step := int64(1); step <= 2; step++ {
			x := Float32s(uniformFloats(step, n, 3))
			a, err := grouped.NewQuantized(n)
			must(t, err)
			b, err := alone.NewQuantized(n)
			must(t, err)
			must(t, grouped.Quantize(QuantizeArgs{Input: x, Output: a}))
			must(t, alone.Quantize(QuantizeArgs{Input: x, Output: b}))
			if !bytes.Equal(a.Codes.Bytes(), b.Codes.Bytes()) || a.ScaleInv.Float32s()[0] != b.ScaleInv.Float32s()[0] {
				t.Fatalf("%s step %d: amax_comm of one rank quantizes differently", recipe, step)
			}
		}
		sa, err := grouped.ExportState()
		must(t, err)
		sb, err := alone.ExportState()
		must(t, err)
		if !bytes.Equal(sa, sb) {
			t.Fatalf("%s: states differ", recipe)
		}
	}
}
