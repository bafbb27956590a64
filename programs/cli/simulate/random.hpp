// Seeded randomness that is the same on every machine and thread count:
// splitmix64 (Steele, Lea, Flood 2014) as the generator, our own uniform /
// exponential / normal transforms (std:: distributions are
// implementation-defined), and per-run seeds derived from (seed, run) so a
// run's numbers do not depend on which worker ran it or in what order.
#pragma once

#include <cmath>
#include <cstdint>

namespace frugal::simulate {

inline uint64_t splitmix64_next(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A well-mixed seed for stream `stream` of run `run` under the user's seed.
inline uint64_t derive_seed(uint64_t seed, uint64_t run, uint64_t stream) {
  uint64_t state = seed;
  uint64_t mixed = splitmix64_next(state) ^ (run * 0xD1B54A32D192ED03ull);
  state = mixed;
  mixed = splitmix64_next(state) ^ (stream * 0x8CB92BA72F3D8DD7ull);
  state = mixed;
  return splitmix64_next(state);
}

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) : state_(seed) {}
  void reseed(uint64_t seed) {
    state_ = seed;
    has_spare_ = false;
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(splitmix64_next(state_) >> 11) * 0x1.0p-53; }
  // Exponential with the given mean (> 0).
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }
  // Standard normal (Marsaglia's polar method: no trigonometry, one log
  // per pair): one draw makes two, the second is kept for the next call
  // (the engine wants two per record).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u = 0.0, v = 0.0, s = 0.0;
    do {
      u = 2.0 * uniform() - 1.0;
      v = 2.0 * uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double factor = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * factor;
    has_spare_ = true;
    return u * factor;
  }

 private:
  uint64_t state_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace frugal::simulate
