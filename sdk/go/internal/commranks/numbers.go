package main

import (
	"fmt"
	"math"

	frugal "frugal.invalid/sdk/go"
)

// numbers is a tensor of a reducible dtype over a Go slice, read and
// written as float64. Every value the checks use is a small integer, which
// each of these dtypes holds exactly, so sums, maxima and minima compare
// exactly whatever order the backend reduces in.
type numbers struct {
	t   frugal.Tensor
	set func(i int, v float64)
	get func(i int) float64
}

// newNumbers returns n zeros of dtype d (float32, float64, float16,
// bfloat16, int32, int64 or uint8).
func newNumbers(d frugal.DType, n int) numbers {
	switch d {
	case frugal.DTypeFloat32:
		s := make([]float32, n)
		return numbers{frugal.Float32s(s), func(i int, v float64) { s[i] = float32(v) },
			func(i int) float64 { return float64(s[i]) }}
	case frugal.DTypeFloat64:
		s := make([]float64, n)
		return numbers{frugal.Float64s(s), func(i int, v float64) { s[i] = v }, func(i int) float64 { return s[i] }}
	case frugal.DTypeInt32:
		s := make([]int32, n)
		return numbers{frugal.Int32s(s), func(i int, v float64) { s[i] = int32(v) },
			func(i int) float64 { return float64(s[i]) }}
	case frugal.DTypeInt64:
		s := make([]int64, n)
		return numbers{frugal.Int64s(s), func(i int, v float64) { s[i] = int64(v) },
			func(i int) float64 { return float64(s[i]) }}
	case frugal.DTypeUint8:
		s := make([]uint8, n)
		return numbers{frugal.Uint8s(s), func(i int, v float64) { s[i] = uint8(v) },
			func(i int) float64 { return float64(s[i]) }}
	case frugal.DTypeBFloat16:
		// bfloat16 is the top half of a float32: exact for small integers.
		s := make([]uint16, n)
		return numbers{frugal.Halves(d, s), func(i int, v float64) { s[i] = uint16(math.Float32bits(float32(v)) >> 16) },
			func(i int) float64 { return float64(math.Float32frombits(uint32(s[i]) << 16)) }}
	case frugal.DTypeFloat16:
		s := make([]uint16, n)
		return numbers{frugal.Halves(d, s), func(i int, v float64) { s[i] = float16Bits(v) },
			func(i int) float64 { return float16Value(s[i]) }}
	}
	panic(fmt.Sprintf("commranks: %v is not reducible", d))
}

// float16Bits encodes an integer of magnitude below 2048 (exact in IEEE
// binary16: 10 mantissa bits plus the implicit one).
func float16Bits(v float64) uint16 {
	if v == 0 {
		return 0
	}
	var sign uint16
	if v < 0 {
		sign, v = 0x8000, -v
	}
	exp := int(math.Floor(math.Log2(v)))
	mantissa := uint16((v/math.Ldexp(1, exp) - 1) * 1024)
	return sign | uint16(exp+15)<<10 | mantissa
}

// float16Value decodes a normal binary16 value (or zero).
func float16Value(b uint16) float64 {
	if b&0x7FFF == 0 {
		return 0
	}
	v := math.Ldexp(1+float64(b&0x3FF)/1024, int(b>>10&0x1F)-15)
	if b&0x8000 != 0 {
		return -v
	}
	return v
}
