//! The tour's input stream (samples/README.md): a 64-bit linear
//! congruential generator, so every language computes the same inputs.

/// One LCG stream; each tour step seeds its own.
pub struct Lcg {
    state: u64,
}

impl Lcg {
    /// A stream starting from `seed`.
    pub fn new(seed: u64) -> Lcg {
        Lcg { state: seed }
    }

    /// The next 31-bit value.
    pub fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.state >> 33
    }

    /// The next value in [-1, 1): computed in f64 as the spec writes it,
    /// then rounded to f32, so every language feeds the same bits.
    pub fn uniform(&mut self) -> f32 {
        (self.next() as f64 / 2147483648.0 * 2.0 - 1.0) as f32
    }
}
