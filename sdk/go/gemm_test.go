package frugal

import (
	"math"
	"testing"
)

// quantizeFor quantizes a [rows, cols] matrix with q and dequantizes it
// back: the codes and the exact values the GEMM multiplies.
func quantizeFor(t *testing.T, q *Quantizer, x []float32, rows, cols int64) (*Quantized, []float32) {
	t.Helper()
	out, err := q.NewQuantized(rows, cols)
	must(t, err)
	must(t, q.Quantize(QuantizeArgs{Input: Float32s(x, rows, cols), Output: out}))
	back := make([]float32, len(x))
	must(t, q.Dequantize(out, Float32s(back, rows, cols)))
	return out, back
}

func TestGEMMMatchesTheProductOfDequantizedOperands(t *testing.T) {
	q := newTestQuantizer(t, "current")
	const m, n, k = 8, 6, 64
	const alpha = 0.75
	a, da := quantizeFor(t, q, uniformFloats(5, m*k, 3), m, k)
	b, db := quantizeFor(t, q, uniformFloats(6, n*k, 2), n, k)
	d := make([]float32, m*n)
	must(t, q.GEMM(GemmArgs{A: a, B: b, D: Float32s(d, m, n), Alpha: alpha}))

	// Reference in float64 from the dequantized operands. Error budget: each
	// dequantized value is code*scale_inv rounded once to float32 (relative
	// 2^-24 each, so 2^-23 per product); the GEMM multiplies codes exactly
	// and accumulates k terms in float32 (at most k*2^-24 of sum|a||b|),
	// then applies the scales and alpha (a few more roundings). Hence the
	// bound 2*(k+4)*2^-24 * alpha*sum|a||b|.
	var dmax float64
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var ref, mag float64
			for p := 0; p < k; p++ {
				prod := float64(da[i*k+p]) * float64(db[j*k+p])
				ref += prod
				mag += math.Abs(prod)
			}
			ref *= alpha
			bound := 2 * (k + 4) * math.Pow(2, -24) * alpha * mag
			if diff := math.Abs(float64(d[i*n+j]) - ref); diff > bound {
				t.Fatalf("d[%d,%d] = %v, reference %v: error %g > %g", i, j, d[i*n+j], ref, diff, bound)
			}
			dmax = math.Max(dmax, math.Abs(float64(d[i*n+j])))
		}
	}
	if dmax == 0 {
		t.Fatalf("the product is all zeros")
	}

	// An FP8 output: D is scaled by DScale before the cast and DAmax gets
	// max|D| before scaling; decoding the codes with 1/DScale gives the
	// float32 result back within half an E4M3 step (relative 2^-4).
	const dscale = 0.5
	codes := make([]byte, m*n)
	amax := []float32{0}
	must(t, q.GEMM(GemmArgs{A: a, B: b, D: Bytes(DTypeFloat8E4M3FN, codes, m, n),
		DScale: Float32s([]float32{dscale}), DAmax: Float32s(amax), Alpha: alpha}))
	if diff := math.Abs(float64(amax[0]) - dmax); diff > 1e-6*dmax {
		t.Errorf("d amax %v, want max|D| = %v", amax[0], dmax)
	}
	decoded := make([]float32, m*n)
	must(t, q.Dequantize(&Quantized{Codes: Bytes(DTypeFloat8E4M3FN, codes, m, n),
		ScaleInv: Float32s([]float32{1 / dscale})}, Float32s(decoded, m, n)))
	for i := range d {
		if diff := math.Abs(float64(decoded[i] - d[i])); diff > math.Abs(float64(d[i]))/16+1e-6 {
			t.Fatalf("fp8 d[%d] decodes to %v, float32 d is %v", i, decoded[i], d[i])
		}
	}

	// The zero Alpha means 1: exactly d / 0.75 up to one rounding.
	plain := make([]float32, m*n)
	must(t, q.GEMM(GemmArgs{A: a, B: b, D: Float32s(plain, m, n)}))
	for i := range d {
		if diff := math.Abs(float64(plain[i])*alpha - float64(d[i])); diff > 1e-6*math.Abs(float64(d[i]))+1e-30 {
			t.Fatalf("alpha 0 (=1): %v * 0.75 != %v", plain[i], d[i])
		}
	}
}

func TestGEMMErrors(t *testing.T) {
	q := newTestQuantizer(t, "current")
	a, _ := quantizeFor(t, q, uniformFloats(1, 4*32, 1), 4, 32)
	b, _ := quantizeFor(t, q, uniformFloats(2, 3*16, 1), 3, 16)
	d := make([]float32, 4*3)
	err := q.GEMM(GemmArgs{A: a, B: b, D: Float32s(d, 4, 3)})
	wantError(t, err, CodeInvalidArgument, "inner")
	// An FP8 output needs its scale.
	b2, _ := quantizeFor(t, q, uniformFloats(2, 3*32, 1), 3, 32)
	err = q.GEMM(GemmArgs{A: a, B: b2, D: Bytes(DTypeFloat8E4M3FN, make([]byte, 12), 4, 3)})
	wantError(t, err, CodeInvalidArgument, "scale")
	err = q.GEMM(GemmArgs{A: a, D: Float32s(d, 4, 3)})
	wantError(t, err, CodeInvalidArgument, "a and b are required")
}
