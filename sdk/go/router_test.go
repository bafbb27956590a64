package frugal

import (
	"bytes"
	"math"
	"sort"
	"testing"
)

const testExperts, testTopK, testTokens = 8, 2, 32

func newTestRouter(t *testing.T, name string, set func(*Options)) *Router {
	t.Helper()
	opts := newTestOptions(t)
	must(t, opts.SetInt("experts", testExperts))
	must(t, opts.SetInt("k", testTopK))
	if set != nil {
		set(opts)
	}
	r, err := NewRouter(newTestContext(t), name, opts)
	if err != nil {
		t.Fatalf("NewRouter(%s): %v", name, err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// topKReference returns the k largest logits' experts, best first, and
// their weights: the softmax over every expert, or with renormalize the
// softmax restricted to those k.
func topKReference(row []float32, k int, renormalize bool) ([]int32, []float64) {
	idx := make([]int32, len(row))
	for i := range idx {
		idx[i] = int32(i)
	}
	sort.SliceStable(idx, func(a, b int) bool { return row[idx[a]] > row[idx[b]] })
	var all float64
	for _, v := range row {
		all += math.Exp(float64(v))
	}
	idx = idx[:k]
	w := make([]float64, k)
	var sum float64
	for j, e := range idx {
		w[j] = math.Exp(float64(row[e]))
		sum += w[j]
	}
	if !renormalize {
		sum = all
	}
	for j := range w {
		w[j] /= sum
	}
	return idx, w
}

func TestTopKSoftmaxMatchesGoReference(t *testing.T) {
	for _, renormalize := range []bool{false, true} {
		checkTopKSoftmax(t, renormalize)
	}
}

// checkTopKSoftmax routes with renormalize (false is the default) and
// compares every choice and weight with topKReference.
func checkTopKSoftmax(t *testing.T, renormalize bool) {
	r := newTestRouter(t, "topk_softmax", func(o *Options) {
		must(t, o.SetDouble("capacity_factor", 8))
		must(t, o.SetBool("renormalize", renormalize))
	})
	l := r.Layout()
	if l.Choice != TokenChoice || l.Experts != testExperts || l.TopK != testTopK || l.Bias {
		t.Fatalf("layout %+v", l)
	}
	logits := uniformFloats(11, testTokens*testExperts, 4)
	plan, err := r.NewPlan(testTokens)
	must(t, err)
	must(t, r.Route(Float32s(logits, testTokens, testExperts), plan))

	ids, weights, dropped := plan.ExpertIDs.Int32s(), plan.Weights.Float32s(), plan.Dropped.Bytes()
	for tok := 0; tok < testTokens; tok++ {
		wantIDs, wantW := topKReference(logits[tok*testExperts:(tok+1)*testExperts], testTopK, renormalize)
		for j := 0; j < testTopK; j++ {
			s := tok*testTopK + j
			if ids[s] != wantIDs[j] || math.Abs(float64(weights[s])-wantW[j]) > 1e-5 || dropped[s] != 0 {
				t.Fatalf("renormalize %v, token %d choice %d: expert %d weight %v dropped %d; want expert %d weight %v",
					renormalize, tok, j, ids[s], weights[s], dropped[s], wantIDs[j], wantW[j])
			}
		}
	}
	var demand int64
	for _, d := range plan.ExpertDemand.Int64s() {
		demand += d
	}
	offsets := plan.ExpertOffsets.Int64s()
	if demand != testTokens*testTopK || offsets[0] != 0 || offsets[testExperts] != testTokens*testTopK {
		t.Errorf("demand %d, offsets %v; want %d assignments", demand, offsets, testTokens*testTopK)
	}
	st, err := r.Stats(plan)
	must(t, err)
	if st.Tokens != testTokens || st.Kept != testTokens*testTopK || st.Dropped != 0 || st.AuxLoss <= 0 {
		t.Errorf("stats %+v", st)
	}
	if st.AuxLoss != plan.Losses.Float32s()[0] {
		t.Errorf("stats aux loss %v != plan losses[0] %v", st.AuxLoss, plan.Losses.Float32s()[0])
	}
}

func TestPermuteThenCombineRestoresTokens(t *testing.T) {
	r := newTestRouter(t, "topk_softmax", func(o *Options) { must(t, o.SetBool("renormalize", true)) })
	plan, err := r.NewPlan(testTokens)
	must(t, err)
	must(t, r.Route(Float32s(uniformFloats(5, testTokens*testExperts, 3), testTokens, testExperts), plan))
	shape, err := r.PlanShape(testTokens)
	must(t, err)
	const hidden = 4
	x := uniformFloats(6, testTokens*hidden, 1)
	perm := make([]float32, int(shape.MaxRows)*hidden)
	must(t, r.Permute(plan, Float32s(x, testTokens, hidden), Float32s(perm, shape.MaxRows, hidden)))
	rowToken := plan.RowToken.Int64s()
	for row, tok := range rowToken {
		if tok < 0 {
			continue
		}
		for h := 0; h < hidden; h++ {
			if perm[row*hidden+h] != x[int(tok)*hidden+h] {
				t.Fatalf("row %d is not token %d's activation", row, tok)
			}
		}
	}
	// Dropless (no capacity_factor) and renormalized, each token's weights
	// sum to 1, so combine(permute(x)) is x.
	st, err := r.Stats(plan)
	must(t, err)
	if st.Dropped != 0 || st.Kept != testTokens*testTopK {
		t.Fatalf("dropless router: stats %+v", st)
	}
	y := make([]float32, len(x))
	must(t, r.Combine(plan, Float32s(perm, shape.MaxRows, hidden), Float32s(y, testTokens, hidden)))
	for i := range x {
		if math.Abs(float64(x[i]-y[i])) > 1e-5 {
			t.Fatalf("element %d: combine(permute(x)) = %v, x = %v", i, y[i], x[i])
		}
	}
}

func TestDeepSeekBiasMovesAndTravelsInState(t *testing.T) {
	a := newTestRouter(t, "deepseek_v3", nil)
	b := newTestRouter(t, "deepseek_v3", nil)
	if !a.Layout().Bias {
		t.Fatalf("deepseek_v3 layout has no bias: %+v", a.Layout())
	}
	before, err := a.ExportState()
	must(t, err)
	must(t, a.Update([]int64{50, 0, 0, 0, 0, 0, 0, 14}))
	after, err := a.ExportState()
	must(t, err)
	if bytes.Equal(before, after) {
		t.Fatalf("update left the bias state unchanged")
	}
	must(t, b.ImportState(after))
	logits := Float32s(uniformFloats(8, testTokens*testExperts, 1), testTokens, testExperts)
	pa, _ := a.NewPlan(testTokens)
	pb, _ := b.NewPlan(testTokens)
	must(t, a.Route(logits, pa))
	must(t, b.Route(logits, pb))
	ia, ib := pa.ExpertIDs.Int32s(), pb.ExpertIDs.Int32s()
	for i := range ia {
		if ia[i] != ib[i] {
			t.Fatalf("slot %d: restored router picks expert %d, original %d", i, ib[i], ia[i])
		}
	}
	wantError(t, a.Update([]int64{1, 2}), CodeInvalidArgument)
}

func TestRouterErrorsCarryCodeAndMessage(t *testing.T) {
	ctx := newTestContext(t)
	opts := newTestOptions(t)
	must(t, opts.SetInt("experts", 4))
	must(t, opts.SetInt("k", 9))
	_, err := NewRouter(ctx, "topk_softmax", opts)
	// One value outside its range is OUT_OF_RANGE, the message naming it
	// and the range (cross-option constraints stay INVALID_ARGUMENT).
	wantError(t, err, CodeOutOfRange, "router 'topk_softmax'", "option 'k'", "[1, 4]", "got 9")
	_, err = NewRouter(ctx, "no_such_router", nil)
	wantError(t, err, CodeNotFound, "no_such_router")

	r := newTestRouter(t, "topk_softmax", nil)
	plan, err := r.NewPlan(testTokens)
	must(t, err)
	// Logits for another token count than the plan was made for.
	err = r.Route(Float32s(make([]float32, 4*testExperts), 4, testExperts), plan)
	wantError(t, err, CodeInvalidArgument)
	_, err = r.PlanShape(0)
	wantError(t, err, CodeInvalidArgument)
	must(t, r.Close())
	must(t, r.Close())
	_, err = r.NewPlan(1)
	wantError(t, err, CodeFailedPrecondition, "router is closed")
}
