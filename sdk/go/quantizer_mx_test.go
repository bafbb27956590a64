package frugal

import (
	"math"
	"testing"
)

// mxFormat is an element format's largest finite value, mantissa bits and
// smallest subnormal.
type mxFormat struct {
	max, smallest float64
	mantissaBits  int
}

var mxFormats = map[string]mxFormat{
	"e4m3": {max: 448, smallest: math.Ldexp(1, -9), mantissaBits: 3},
	"e5m2": {max: 57344, smallest: math.Ldexp(1, -16), mantissaBits: 2},
}

const mxBlock = 32

// decodeFP8 is the value of an E4M3FN or E5M2 code.
func decodeFP8(code byte, format string) float64 {
	sign := 1.0
	if code&0x80 != 0 {
		sign = -1
	}
	expBits, bias := 4, 7
	if format == "e5m2" {
		expBits, bias = 5, 15
	}
	manBits := 7 - expBits
	exponent := int(code&0x7F) >> manBits
	mantissa := float64(int(code) & (1<<manBits - 1))
	maxExp := 1<<expBits - 1
	switch {
	case format == "e4m3" && code&0x7F == 0x7F, format == "e5m2" && exponent == maxExp && mantissa != 0:
		return math.NaN()
	case format == "e5m2" && exponent == maxExp:
		return sign * math.Inf(1)
	case exponent == 0:
		return sign * math.Ldexp(mantissa, 1-bias-manBits)
	}
	return sign * math.Ldexp(1+mantissa/float64(int(1)<<manBits), exponent-bias)
}

// mxScaleCode is 127 + the smallest k with amax <= max * 2^k (127 for an
// all-zero block), clamped to [0, 254].
func mxScaleCode(amax, max float64) int {
	if amax == 0 {
		return 127
	}
	k := int(math.Ceil(math.Log2(amax / max)))
	for amax > math.Ldexp(max, k) { // exact: powers of two
		k++
	}
	for amax <= math.Ldexp(max, k-1) {
		k--
	}
	return int(math.Min(math.Max(float64(k+127), 0), 254))
}

func TestMXQuantizeDequantizeMatchesTheReference(t *testing.T) {
	const rows, cols = 5, 80 // two full blocks and a partial one per row
	x := uniformFloats(29, rows*cols, 1)
	for r, magnitude := range []float32{1, 1e-3, 40, 3e4, 1} {
		for c := 0; c < cols; c++ {
			x[r*cols+c] *= magnitude
		}
	}
	for c := 32; c < 64; c++ {
		x[4*cols+c] = 0 // an all-zero block
	}
	for _, format := range []string{"e4m3", "e5m2"} {
		t.Run(format, func(t *testing.T) {
			f := mxFormats[format]
			opts := newTestOptions(t)
			must(t, opts.SetString("format", format))
			must(t, opts.SetString("recipe", "mx"))
			q, err := NewQuantizer(newTestContext(t), "quant_fp8", opts)
			must(t, err)
			defer q.Close()
			if l := q.Layout(); l.ScalingMode != ScalingMX || l.ScaleDType != DTypeFloat8E8M0 {
				t.Fatalf("layout %+v", l)
			}
			out, err := q.NewQuantized(rows, cols)
			must(t, err)
			if out.Scale.given() {
				t.Fatalf("NewQuantized gave an MX layout a Scale tensor")
			}
			fake := make([]float32, len(x))
			must(t, q.Quantize(QuantizeArgs{Input: Float32s(x, rows, cols), Output: out, Fake: Float32s(fake, rows, cols)}))
			y := make([]float32, len(x))
			must(t, q.Dequantize(out, Float32s(y, rows, cols)))

			scales, codes := out.ScaleInv.Bytes(), out.Codes.Bytes()
			if len(scales) != rows*3 {
				t.Fatalf("%d scale codes, want %d", len(scales), rows*3)
			}
			var amax float64
			for r := 0; r < rows; r++ {
				for b := 0; b < 3; b++ {
					var blockAmax float64
					for c := b * mxBlock; c < (b+1)*mxBlock && c < cols; c++ {
						blockAmax = math.Max(blockAmax, math.Abs(float64(x[r*cols+c])))
					}
					amax = math.Max(amax, blockAmax)
					code := mxScaleCode(blockAmax, f.max)
					if got := int(scales[r*3+b]); got != code {
						t.Fatalf("row %d block %d: scale code %d, want %d", r, b, got, code)
					}
					factor := math.Ldexp(1, code-127)
					for c := b * mxBlock; c < (b+1)*mxBlock && c < cols; c++ {
						i := r*cols + c
						want := decodeFP8(codes[i], format) * factor
						if float64(y[i]) != want || fake[i] != y[i] {
							t.Fatalf("element %d: dequantized %v, fake %v, want code %#x * 2^%d = %v",
								i, y[i], fake[i], codes[i], code-127, want)
						}
						bound := math.Abs(float64(x[i]))*math.Ldexp(1, -(f.mantissaBits+1)) + factor*f.smallest/2
						if d := math.Abs(float64(x[i]) - want); d > bound {
							t.Fatalf("element %d: %v -> %v, error %g > %g", i, x[i], want, d, bound)
						}
					}
				}
			}
			if got := float64(out.Amax.Float32s()[0]); got != amax {
				t.Errorf("amax %v, want %v", got, amax)
			}
		})
	}
}
