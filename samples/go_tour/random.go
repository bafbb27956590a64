package main

// stream is the tour's 64-bit linear congruential generator, the same in
// every language's tour so that all of them see the same inputs.
type stream struct{ state uint64 }

// newStream starts a stream at seed (each step seeds its own).
func newStream(seed uint64) *stream { return &stream{state: seed} }

// next advances the state (mod 2^64, by Go's unsigned wrap-around) and
// returns its top 31 bits.
func (s *stream) next() uint64 {
	s.state = s.state*6364136223846793005 + 1442695040888963407
	return s.state >> 33
}

// uniform returns a value in [-1, 1): computed in float64 (exactly: 31
// bits) and rounded to float32, as the tour spells out.
func (s *stream) uniform() float32 {
	return float32(float64(s.next())/2147483648.0*2 - 1)
}

// float32s returns n values uniform * scale, the product taken in float32
// as the tour spells out: for scales that are not powers of two, rounding
// a float64 product instead would change some inputs in their last bit.
func (s *stream) float32s(n int, scale float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = s.uniform() * scale
	}
	return out
}
