package frugal

import (
	"bytes"
	"math"
	"math/rand"
	"testing"
)

const e4m3Max = 448.0

func newTestQuantizer(t *testing.T, recipe string) *Quantizer {
	t.Helper()
	opts := newTestOptions(t)
	must(t, opts.SetString("format", "e4m3"))
	must(t, opts.SetString("recipe", recipe))
	q, err := NewQuantizer(newTestContext(t), "quant_fp8", opts)
	if err != nil {
		t.Fatalf("NewQuantizer(%s): %v", recipe, err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

// uniformFloats gives n values in [-scale, scale) from a fixed seed.
func uniformFloats(seed int64, n int, scale float32) []float32 {
	r := rand.New(rand.NewSource(seed))
	out := make([]float32, n)
	for i := range out {
		out[i] = (r.Float32()*2 - 1) * scale
	}
	return out
}

func TestCurrentScalingRoundTripsWithinHalfAnE4M3Step(t *testing.T) {
	q := newTestQuantizer(t, "current")
	if l := q.Layout(); l.DType != DTypeFloat8E4M3FN || l.ScalingMode != ScalingCurrent || l.ScaleDType != DTypeFloat32 {
		t.Fatalf("layout %+v", l)
	}
	const rows, cols = 16, 48
	x := uniformFloats(3, rows*cols, 5)
	var amax float64
	for _, v := range x {
		amax = math.Max(amax, math.Abs(float64(v)))
	}
	out, err := q.NewQuantized(rows, cols)
	must(t, err)
	fake := make([]float32, len(x))
	must(t, q.Quantize(QuantizeArgs{Input: Float32s(x, rows, cols), Output: out, Fake: Float32s(fake, rows, cols)}))

	scale := float64(out.Scale.Float32s()[0])
	if want := e4m3Max / amax; math.Abs(scale-want) > 1e-6*want {
		t.Errorf("scale %.9g, want 448/amax = %.9g", scale, want)
	}
	if got := float64(out.ScaleInv.Float32s()[0]); math.Abs(got*scale-1) > 1e-6 {
		t.Errorf("scale_inv %.9g is not 1/scale", got)
	}
	if got := float64(out.Amax.Float32s()[0]); got != amax {
		t.Errorf("amax %.9g, want %.9g", got, amax)
	}
	y := make([]float32, len(x))
	must(t, q.Dequantize(out, Float32s(y, rows, cols)))
	for i := range x {
		bound := math.Abs(float64(x[i]))/16 + amax/e4m3Max*math.Pow(2, -10)
		if d := math.Abs(float64(x[i] - y[i])); d > bound {
			t.Fatalf("element %d: %v -> %v, error %g > %g", i, x[i], y[i], d, bound)
		}
		if y[i] != fake[i] {
			t.Fatalf("element %d: dequantized %v != fake %v", i, y[i], fake[i])
		}
	}
}

func TestDelayedStateExportImportGivesIdenticalCodes(t *testing.T) {
	a := newTestQuantizer(t, "delayed")
	b := newTestQuantizer(t, "delayed")
	const n = 256
	for step := int64(0); step < 3; step++ {
		out, err := a.NewQuantized(n)
		must(t, err)
		must(t, a.Quantize(QuantizeArgs{Input: Float32s(uniformFloats(step, n, float32(step+1))), Output: out}))
	}
	state, err := a.ExportState()
	must(t, err)
	if len(state) == 0 {
		t.Fatalf("delayed scaling exported an empty state")
	}
	must(t, b.ImportState(state))
	x := uniformFloats(99, n, 2)
	outA, _ := a.NewQuantized(n)
	outB, _ := b.NewQuantized(n)
	must(t, a.Quantize(QuantizeArgs{Input: Float32s(x), Output: outA}))
	must(t, b.Quantize(QuantizeArgs{Input: Float32s(x), Output: outB}))
	if !bytes.Equal(outA.Codes.Bytes(), outB.Codes.Bytes()) || outA.ScaleInv.Float32s()[0] != outB.ScaleInv.Float32s()[0] {
		t.Fatalf("restored quantizer quantizes differently (scale_inv %v vs %v)",
			outA.ScaleInv.Float32s()[0], outB.ScaleInv.Float32s()[0])
	}
	wantError(t, b.ImportState(state[:len(state)/2]), CodeDataCorrupted, "import_state", "corrupted")
}

func TestQuantizerErrorsCarryCodeAndMessage(t *testing.T) {
	ctx := newTestContext(t)
	opts := newTestOptions(t)
	must(t, opts.SetString("format", "e9m9"))
	_, err := NewQuantizer(ctx, "quant_fp8", opts)
	wantError(t, err, CodeInvalidArgument, "quantizer 'quant_fp8'", "e9m9")

	q := newTestQuantizer(t, "current")
	out, err := q.NewQuantized(4, 8)
	must(t, err)
	// The core refuses an input whose shape does not match the codes.
	err = q.Quantize(QuantizeArgs{Input: Float32s(make([]float32, 16), 2, 8), Output: out})
	wantError(t, err, CodeInvalidArgument)
	// The binding refuses a shape that does not match the slice.
	err = q.Quantize(QuantizeArgs{Input: Float32s(make([]float32, 3), 4, 8), Output: out})
	wantError(t, err, CodeInvalidArgument, "input:", "holds 12")
	must(t, q.Close())
	must(t, q.Close())
	wantError(t, q.Quantize(QuantizeArgs{}), CodeFailedPrecondition, "quantizer is closed")
}
