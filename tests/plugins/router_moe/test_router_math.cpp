// The routers' fp32 exp, log and sigmoid (algorithms/router_math.hpp)
// against libm's double-precision exp and log: the error in float ulps over
// a dense sample of every float (one input in 257, about 1.7e7 per
// function), plus the special values and the overflow / underflow edges.
// The stated bound is 0.501 ulp: correctly rounded except within 0.001 ulp
// of a rounding boundary (the design bound is 0.5 + 2^-22). "[.exhaustive]"
// runs all 2^32 inputs (about a minute per function).
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "algorithms/router_math.hpp"

namespace m = frugal::router::math;

namespace {

constexpr double kBound = 0.501;

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
float from_bits(uint32_t u) { return std::bit_cast<float>(u); }

// The float spacing at the magnitude of `ref` (denormal spacing below 2^-126).
double ulp_at(double ref) {
  const double a = std::fabs(ref);
  if (a < 0x1p-126) return 0x1p-149;
  int e = 0;
  static_cast<void>(std::frexp(a, &e));  // a = f * 2^e, f in [0.5, 1)
  return std::ldexp(1.0, e - 24);
}

// |got - ref| in ulps of ref. Infinity counts as 2^128, the next step past
// FLT_MAX, so a correctly rounded overflow measures at most 0.5 too.
double ulp_error(float got, double ref) {
  const double top = 0x1p128;
  double g = std::isinf(got) ? std::copysign(top, got) : double{got};
  double r = std::fabs(ref) > top ? std::copysign(top, ref) : ref;
  if (g == r) return 0.0;
  return std::fabs(g - r) / ulp_at(r);
}

struct Sweep {
  double worst = 0.0;
  float worst_input = 0.0f;
  uint64_t inputs = 0;
  uint64_t not_nearest = 0;  // results that differ from the double result rounded to float
};

template <class F, class Ref>
Sweep sweep(uint64_t step, F f, Ref ref, bool positive_only) {
  Sweep s;
  for (uint64_t u = 0; u <= 0xFFFF'FFFFull; u += step) {
    const float x = from_bits(static_cast<uint32_t>(u));
    if (std::isnan(x) || (positive_only && !(x > 0.0f)) || std::isinf(x)) continue;
    const float got = f(x);
    const double want = ref(double{x});
    const double err = ulp_error(got, want);
    ++s.inputs;
    if (got != static_cast<float>(want)) ++s.not_nearest;
    if (!(err <= s.worst)) {
      s.worst = err;
      s.worst_input = x;
    }
  }
  return s;
}

void report(const char* what, const Sweep& s) {
  INFO(what << ": " << s.inputs << " inputs, max " << s.worst << " ulp at x = " << s.worst_input << " ("
            << s.not_nearest << " not the nearest float)");
  CHECK(s.inputs > 0);
  CHECK(s.worst <= kBound);
}

// Every 257th bit pattern: odd, so every exponent and mantissa pattern class is hit.
constexpr uint64_t kStep = 257;

Sweep exp_sweep(uint64_t step) {
  return sweep(
      step, [](float x) { return m::exp_f32(x); }, [](double x) { return std::exp(x); }, false);
}

Sweep log_sweep(uint64_t step) {
  return sweep(
      step, [](float x) { return m::log_f32(x); }, [](double x) { return std::log(x); }, true);
}

}  // namespace

TEST_CASE("router math: exp_f32 is within 0.501 ulp on a dense sample") { report("exp_f32", exp_sweep(kStep)); }

TEST_CASE("router math: log_f32 is within 0.501 ulp on a dense sample") { report("log_f32", log_sweep(kStep)); }

TEST_CASE("router math: every float input", "[.exhaustive]") {
  report("exp_f32", exp_sweep(1));
  report("log_f32", log_sweep(1));
}

TEST_CASE("router math: exp_f32 special values and range edges") {
  constexpr float inf = std::numeric_limits<float>::infinity();
  CHECK(bits(m::exp_f32(0.0f)) == bits(1.0f));
  CHECK(bits(m::exp_f32(-0.0f)) == bits(1.0f));
  CHECK(bits(m::exp_f32(inf)) == bits(inf));
  CHECK(bits(m::exp_f32(-inf)) == bits(0.0f));
  CHECK(bits(m::exp_f32(1e30f)) == bits(inf));
  CHECK(bits(m::exp_f32(-1e30f)) == bits(0.0f));
  // NaN in, the same NaN out (quieted, payload and sign kept).
  CHECK(bits(m::exp_f32(from_bits(0x7FC0'1234u))) == 0x7FC0'1234u);
  CHECK(bits(m::exp_f32(from_bits(0xFF80'0001u))) == 0xFFC0'0001u);
  // The largest argument with a finite result, and the next float.
  const float last_finite = from_bits(0x42B1'7217u);  // 88.7228317...
  CHECK(std::isfinite(m::exp_f32(last_finite)));
  CHECK(bits(m::exp_f32(std::nextafter(last_finite, inf))) == bits(inf));
  // Around the underflow: every result must be the correctly rounded one
  // (denormals included) unless within a hair of a tie.
  for (float x = -87.0f; x > -106.0f; x = std::nextafter(x, -inf) - 0.001f) {
    const double want = std::exp(double{x});
    CHECK(ulp_error(m::exp_f32(x), want) <= kBound);
  }
  CHECK(bits(m::exp_f32(-104.0f)) == bits(0.0f));
  CHECK(m::exp_f32(-103.0f) > 0.0f);
  // Exact powers the softmax leans on: e^0 = 1 so a row's sum is >= 1.
  CHECK(m::exp_f32(std::log(2.0f)) == Approx(2.0f).epsilon(1e-7));
}

TEST_CASE("router math: log_f32 special values") {
  constexpr float inf = std::numeric_limits<float>::infinity();
  CHECK(bits(m::log_f32(1.0f)) == bits(0.0f));
  CHECK(bits(m::log_f32(0.0f)) == bits(-inf));
  CHECK(bits(m::log_f32(-0.0f)) == bits(-inf));
  CHECK(bits(m::log_f32(inf)) == bits(inf));
  CHECK(bits(m::log_f32(-1.0f)) == 0x7FC0'0000u);
  CHECK(bits(m::log_f32(-inf)) == 0x7FC0'0000u);
  CHECK(bits(m::log_f32(from_bits(0x7F80'0001u))) == 0x7FC0'0001u);
  const float tiny = std::numeric_limits<float>::denorm_min();
  CHECK(ulp_error(m::log_f32(tiny), std::log(double{tiny})) <= kBound);
  const float big = std::numeric_limits<float>::max();
  CHECK(ulp_error(m::log_f32(big), std::log(double{big})) <= kBound);
  // Neighbours of 1, where ln x ~ x - 1 is tiny and relative accuracy matters.
  for (float x : {std::nextafter(1.0f, 0.0f), std::nextafter(1.0f, 2.0f), 1.0f + 0x1p-12f, 1.0f - 0x1p-12f}) {
    CHECK(ulp_error(m::log_f32(x), std::log(double{x})) <= kBound);
  }
}

TEST_CASE("router math: sigmoid_f32 saturates to exactly 0 and 1") {
  CHECK(bits(m::sigmoid_f32(-200.0f)) == bits(0.0f));
  CHECK(bits(m::sigmoid_f32(200.0f)) == bits(1.0f));
  CHECK(m::sigmoid_f32(0.0f) == 0.5f);
  for (float v = -30.0f; v <= 30.0f; v += 0.37f) {
    const double want = 1.0 / (1.0 + std::exp(-double{v}));
    CHECK(std::fabs(m::sigmoid_f32(v) - want) <= 3e-7 * want);  // three roundings
  }
}
