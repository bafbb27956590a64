package main

import (
	"fmt"
	"math"

	frugal "frugal.invalid/sdk/go"
)

const (
	routeTokens  = 64
	routeExperts = 8
	routeK       = 2
)

// routerOptions: 8 experts, top-2, a capacity factor of 8 so that nothing
// is dropped, and renormalize, which the checks (weights summing to 1, the
// softmax restricted to the two experts) rely on: router_moe's default is
// plain softmax probabilities.
func routerOptions() (*frugal.Options, error) {
	opts, err := frugal.NewOptions()
	if err != nil {
		return nil, err
	}
	for _, set := range []error{
		opts.SetInt("experts", routeExperts), opts.SetInt("k", routeK),
		opts.SetDouble("capacity_factor", 8), opts.SetBool("renormalize", true),
	} {
		if set != nil {
			opts.Close()
			return nil, set
		}
	}
	return opts, nil
}

// tourRoute is step 4: topk_softmax over [64, 8] logits keeps every token,
// picks each token's two largest logits, weights them by their restricted
// softmax, and loads the experts with 128 assignments.
func tourRoute(ctx *frugal.Context) (string, error) {
	logits := newStream(11).float32s(routeTokens*routeExperts, 4)
	opts, err := routerOptions()
	if err != nil {
		return "", err
	}
	defer opts.Close()
	router, err := frugal.NewRouter(ctx, "topk_softmax", opts)
	if err != nil {
		return "", err
	}
	defer router.Close()
	// The plan's tensors are Go slices the router writes during Route.
	plan, err := router.NewPlan(routeTokens)
	if err != nil {
		return "", err
	}
	if err := router.Route(frugal.Float32s(logits, routeTokens, routeExperts), plan); err != nil {
		return "", err
	}
	ids, weights, dropped := plan.ExpertIDs.Int32s(), plan.Weights.Float32s(), plan.Dropped.Bytes()
	for t := 0; t < routeTokens; t++ {
		row := logits[t*routeExperts : (t+1)*routeExperts]
		if err := checkToken(t, row, ids[t*routeK:(t+1)*routeK], weights[t*routeK:(t+1)*routeK],
			dropped[t*routeK:(t+1)*routeK]); err != nil {
			return "", err
		}
	}
	loads := plan.ExpertDemand.Int64s()
	var sum int64
	for _, l := range loads {
		sum += l
	}
	if sum != routeTokens*routeK {
		return "", mismatch("route: expert loads %v sum to %d, not %d", loads, sum, routeTokens*routeK)
	}
	return fmt.Sprintf("route: %d tokens to %d experts, top-%d, none dropped, loads%s (sum %d)",
		routeTokens, routeExperts, routeK, joinInts(loads), sum), nil
}

// checkToken checks one token's two choices against its logits.
func checkToken(t int, row []float32, ids []int32, weights []float32, dropped []uint8) error {
	if dropped[0] != 0 || dropped[1] != 0 {
		return mismatch("route: token %d lost an assignment to capacity", t)
	}
	first, second := topTwo(row)
	if int(ids[0]) != first || int(ids[1]) != second {
		return mismatch("route: token %d went to experts %d %d; its two largest logits are experts %d %d",
			t, ids[0], ids[1], first, second)
	}
	if s := float64(weights[0]) + float64(weights[1]); math.Abs(s-1) > 1e-5 {
		return mismatch("route: token %d's weights sum to %.7f, not 1", t, s)
	}
	e0, e1 := math.Exp(float64(row[first])), math.Exp(float64(row[second]))
	w0, w1 := e0/(e0+e1), e1/(e0+e1)
	if math.Abs(float64(weights[0])-w0) > 1e-5 || math.Abs(float64(weights[1])-w1) > 1e-5 {
		return mismatch("route: token %d's weights are %.7f %.7f; the softmax of its two logits gives %.7f %.7f",
			t, weights[0], weights[1], w0, w1)
	}
	return nil
}

// topTwo returns the experts of the largest and second-largest logits (the
// lower index first on a tie).
func topTwo(row []float32) (int, int) {
	first, second := -1, -1
	for e, v := range row {
		switch {
		case first < 0 || v > row[first]:
			first, second = e, first
		case second < 0 || v > row[second]:
			second = e
		}
	}
	return first, second
}

func joinInts(values []int64) string {
	s := ""
	for _, v := range values {
		s += fmt.Sprintf(" %d", v)
	}
	return s
}

const (
	quantRows = 32
	quantCols = 64
	e4m3Max   = 448.0
)

// tourQuantize is step 5: current scaling maps the amax to 448, and the
// E4M3 round trip stays within half a step of every element.
func tourQuantize(ctx *frugal.Context) (string, error) {
	x := newStream(13).float32s(quantRows*quantCols, 3)
	opts, err := frugal.NewOptions()
	if err != nil {
		return "", err
	}
	defer opts.Close()
	if err := opts.SetString("format", "e4m3"); err != nil {
		return "", err
	}
	if err := opts.SetString("recipe", "current"); err != nil {
		return "", err
	}
	q, err := frugal.NewQuantizer(ctx, "quant_fp8", opts)
	if err != nil {
		return "", err
	}
	defer q.Close()
	out, err := q.NewQuantized(quantRows, quantCols)
	if err != nil {
		return "", err
	}
	if err := q.Quantize(frugal.QuantizeArgs{Input: frugal.Float32s(x, quantRows, quantCols), Output: out}); err != nil {
		return "", err
	}
	y := make([]float32, len(x))
	if err := q.Dequantize(out, frugal.Float32s(y, quantRows, quantCols)); err != nil {
		return "", err
	}
	var amax float64
	for _, v := range x {
		amax = math.Max(amax, math.Abs(float64(v)))
	}
	scale := float64(out.Scale.Float32s()[0])
	if got := scale * amax; math.Abs(got-e4m3Max) > 1e-6*e4m3Max {
		return "", mismatch("quantize: the scale %.9g maps amax %.9g to %.9g, not 448", scale, amax, got)
	}
	var worst float64
	for i := range x {
		err := math.Abs(float64(x[i]) - float64(y[i]))
		bound := math.Abs(float64(x[i]))/16 + amax/e4m3Max*math.Pow(2, -10)
		if err > bound {
			return "", mismatch("quantize: element %d is %.9g, comes back as %.9g: error %.3g over the bound %.3g",
				i, x[i], y[i], err, bound)
		}
		worst = math.Max(worst, err)
	}
	return fmt.Sprintf("quantize: e4m3 current scaling of [%d, %d]: amax %.6f, scale %.6f, largest round-trip error %.6f",
		quantRows, quantCols, amax, scale, worst), nil
}
