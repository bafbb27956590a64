// gemm_cpu against an fp64 reference on fresh random FP8 operands: shapes
// with partial tiles and k not a multiple of the k slice, every operand
// format pair, fp32 / bf16 / fp16 / FP8 outputs, D's amax, padded rows,
// and identical bytes for any thread count.
#include <catch2/catch.hpp>

#include "test_seed.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "formats/fp8.hpp"
#include "ops/chunks.hpp"
#include "ops/cpu_ops.hpp"
#include "quant_ops_support.hpp"

using namespace quant_ops_test;
using frugal::quant::Fp8Format;

namespace {

constexpr double kU = 0x1p-24;  // fp32 unit roundoff

// gamma_n = n u / (1 - n u) (Higham): the relative error bound of n
// roundings in a row.
double gamma(std::int64_t n) { return static_cast<double>(n) * kU / (1.0 - static_cast<double>(n) * kU); }

struct Dims {
  std::int64_t m, n, k;
};

struct Operands {
  HostMatrix a, b;
  float scale_inv_a = 1.0f, scale_inv_b = 1.0f, alpha = 1.0f;
};

// FP8 codes of normally distributed values (no NaN: the reference is finite).
HostMatrix random_codes(std::int64_t rows, std::int64_t cols, std::int32_t dtype, std::mt19937& rng) {
  HostMatrix m(rows, cols, dtype, 6);
  std::normal_distribution<float> normal(0.0f, 8.0f);
  const Fp8Format f = dtype == FRUGAL_DTYPE_FLOAT8_E4M3FN ? Fp8Format::e4m3fn : Fp8Format::e5m2;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c)
      *m.at(r, c) = frugal::quant::fp32_to_fp8(normal(rng), f, frugal::quant::Saturation::finite);
  return m;
}

Operands random_operands(Dims d, std::int32_t dtype_a, std::int32_t dtype_b, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Operands o{random_codes(d.m, d.k, dtype_a, rng), random_codes(d.n, d.k, dtype_b, rng)};
  std::uniform_real_distribution<float> unit(0.25f, 4.0f);
  o.scale_inv_a = unit(rng);
  o.scale_inv_b = unit(rng);
  o.alpha = unit(rng) - 2.0f;
  return o;
}

struct Result {
  HostMatrix d;
  float amax = -1.0f;
};

Result run(Operands& o, std::int32_t d_dtype, float d_scale, unsigned threads) {
  Result r{HostMatrix(o.a.rows, o.b.rows, d_dtype, 3)};
  frugal::quant::ops::GemmOp op;
  op.a = o.a.view();
  op.b = o.b.view();
  op.d = r.d.view();
  op.scale_inv_a = &o.scale_inv_a;
  op.scale_inv_b = &o.scale_inv_b;
  op.d_scale = &d_scale;
  op.d_amax = &r.amax;
  op.alpha = o.alpha;
  op.threads = threads;
  frugal::quant::ops::gemm_cpu(op);
  return r;
}

// D's exact value and the fp32 error bound at (i, j). The products of two
// fp8 values are exact in fp32, so the only errors are the k - 1 additions
// of the sequential fp32 sum (at most gamma_{k-1} * sum |p|), the two
// roundings of factor = (sa * sb) * alpha and the rounding of acc * factor:
// together at most gamma_{k+2} * sum |p| * |factor|.
struct Reference {
  double value;
  double bound;
};

// The exact D (in double: 8-bit by 8-bit products and their sums are far
// inside its precision) and each element's bound, computed once per operand pair.
struct ReferenceD {
  std::int64_t n = 0;
  std::vector<Reference> at;  // row-major [m, n]
  Reference operator()(std::int64_t i, std::int64_t j) const { return at[static_cast<std::size_t>(i * n + j)]; }
};

std::vector<double> decoded(const HostMatrix& m) {
  std::vector<double> out;
  for (std::int64_t r = 0; r < m.rows; ++r)
    for (std::int64_t c = 0; c < m.cols; ++c) out.push_back(m.get(r, c));
  return out;
}

ReferenceD reference(const Operands& o) {
  const std::vector<double> a = decoded(o.a), b = decoded(o.b);
  const std::int64_t k = o.a.cols;
  const double factor = double{o.scale_inv_a} * double{o.scale_inv_b} * double{o.alpha};
  ReferenceD ref{o.b.rows, {}};
  for (std::int64_t i = 0; i < o.a.rows; ++i) {
    for (std::int64_t j = 0; j < o.b.rows; ++j) {
      double sum = 0.0, abs_sum = 0.0;
      for (std::int64_t kk = 0; kk < k; ++kk) {
        const double p = a[static_cast<std::size_t>(i * k + kk)] * b[static_cast<std::size_t>(j * k + kk)];
        sum += p;
        abs_sum += std::fabs(p);
      }
      ref.at.push_back({sum * factor, gamma(k + 2) * abs_sum * std::fabs(factor)});
    }
  }
  return ref;
}

// |got - ref| within the fp32 bound plus the output dtype's own rounding:
// half an ulp of bf16 (8 significant bits: 2^-8 relative) or fp16 (11
// bits: 2^-11 relative, and half its subnormal spacing 2^-25), or of the fp8
// format at the scaled value.
bool within(float got, std::int32_t dtype, Reference ref, float d_scale) {
  const double err = std::fabs(double{got} - ref.value);
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT32: return err <= ref.bound;
    case FRUGAL_DTYPE_BFLOAT16: return err <= ref.bound + (std::fabs(ref.value) + ref.bound) * 0x1p-8;
    case FRUGAL_DTYPE_FLOAT16:
      // Past 65520 (65504 + half an ulp) fp16 rounds to Inf.
      if (std::isinf(got))
        return std::signbit(got) == std::signbit(ref.value) && std::fabs(ref.value) + ref.bound >= 65520.0;
      return err <= ref.bound + (std::fabs(ref.value) + ref.bound) * 0x1p-11 + 0x1p-25;
    default: break;
  }
  // FP8: got is the decoded code; compare in the scaled domain, where the
  // saturating cast clamps to +-max.
  const auto format = dtype == FRUGAL_DTYPE_FLOAT8_E4M3FN ? frugal::quant::ops::ElementFormat::e4m3
                                                          : frugal::quant::ops::ElementFormat::e5m2;
  const double max = dtype == FRUGAL_DTYPE_FLOAT8_E4M3FN ? 448.0 : 57344.0;
  const double scaled = std::clamp(ref.value * d_scale, -max, max);
  const double slack = (ref.bound + std::fabs(ref.value) * 2 * kU) * d_scale;
  const double half_ulp = fp8_half_ulp(std::max(std::fabs(scaled), std::fabs(double{got})), format);
  return std::fabs(double{got} - scaled) <= half_ulp + slack;
}

}  // namespace

TEST_CASE("gemm_cpu matches an fp64 reference within the fp32 summation bound") {
  // Partial 64 x 64 tiles (67 = 64 + 3, 70 = 64 + 6) and k past one 256 slice.
  const Dims dims = GENERATE(Dims{1, 1, 1}, Dims{5, 7, 3}, Dims{67, 70, 300}, Dims{64, 64, 256}, Dims{3, 100, 513});
  struct Pair {
    std::int32_t a, b;
  };
  const Pair pair = GENERATE(Pair{FRUGAL_DTYPE_FLOAT8_E4M3FN, FRUGAL_DTYPE_FLOAT8_E4M3FN},
                             Pair{FRUGAL_DTYPE_FLOAT8_E4M3FN, FRUGAL_DTYPE_FLOAT8_E5M2},
                             Pair{FRUGAL_DTYPE_FLOAT8_E5M2, FRUGAL_DTYPE_FLOAT8_E4M3FN});
  const std::uint32_t seed = frugal_test::test_seed32();
  INFO(dims.m << "x" << dims.n << "x" << dims.k << " " << dtype_name(pair.a) << " x " << dtype_name(pair.b) << " seed "
              << seed);
  Operands o = random_operands(dims, pair.a, pair.b, seed);
  const ReferenceD ref = reference(o);
  double max_ref = 0.0, max_bound = 0.0;
  for (const Reference& r : ref.at) {
    max_ref = std::max(max_ref, std::fabs(r.value));
    max_bound = std::max(max_bound, r.bound);
  }
  for (const std::int32_t d_dtype : {FRUGAL_DTYPE_FLOAT32, FRUGAL_DTYPE_BFLOAT16, FRUGAL_DTYPE_FLOAT16,
                                     FRUGAL_DTYPE_FLOAT8_E4M3FN, FRUGAL_DTYPE_FLOAT8_E5M2}) {
    INFO("output " << dtype_name(d_dtype));
    // An FP8 output scale that sends the largest values past the range, so
    // the saturating cast is exercised too.
    const float d_scale = d_dtype == FRUGAL_DTYPE_FLOAT8_E4M3FN ? 0.37f : 3.1f;
    const Result r = run(o, d_dtype, d_scale, 0);
    CHECK(r.d.padding_intact());
    std::int64_t failures = 0;
    for (std::int64_t i = 0; i < dims.m; ++i) {
      for (std::int64_t j = 0; j < dims.n; ++j) {
        if (!within(r.d.get(i, j), d_dtype, ref(i, j), d_scale) && ++failures <= 5)
          UNSCOPED_INFO("(" << i << ", " << j << ") got " << r.d.get(i, j) << " reference " << ref(i, j).value
                            << " bound " << ref(i, j).bound);
      }
    }
    CHECK(failures == 0);
    // amax(D) before the output scaling, within the largest element bound.
    CHECK(std::fabs(double{r.amax} - max_ref) <= max_bound);
  }
}

TEST_CASE("gemm_cpu gives identical bytes for any thread count") {
  const Dims dims{130, 190, 300};
  REQUIRE(frugal::quant::ops::detail::chunk_count(9, 64 * 64 * 300, 4) > 1);
  const std::int32_t d_dtype = GENERATE(FRUGAL_DTYPE_FLOAT32, FRUGAL_DTYPE_FLOAT8_E4M3FN);
  const std::uint32_t seed = frugal_test::test_seed32();
  INFO("seed " << seed);
  Operands o = random_operands(dims, FRUGAL_DTYPE_FLOAT8_E4M3FN, FRUGAL_DTYPE_FLOAT8_E5M2, seed);
  const Result one = run(o, d_dtype, 0.5f, 1);
  for (const unsigned threads : {2u, 4u}) {
    const Result many = run(o, d_dtype, 0.5f, threads);
    CHECK(many.d.payload() == one.d.payload());
    CHECK(std::bit_cast<std::uint32_t>(many.amax) == std::bit_cast<std::uint32_t>(one.amax));
  }
}

TEST_CASE("gemm_cpu 512 x 512 x 512: a sample of D against the reference") {
  const Dims dims{512, 512, 512};
  const std::uint32_t seed = frugal_test::test_seed32();
  INFO("seed " << seed);
  Operands o = random_operands(dims, FRUGAL_DTYPE_FLOAT8_E4M3FN, FRUGAL_DTYPE_FLOAT8_E4M3FN, seed);
  const auto start = std::chrono::steady_clock::now();
  const Result r = run(o, FRUGAL_DTYPE_FLOAT32, 1.0f, 0);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  WARN("gemm_cpu 512^3: " << took.count() << " s");
  // A sample of rows against the reference (the whole of it costs more than the GEMM).
  Operands sample = o;
  sample.a = HostMatrix(dims.m / 37 + 1, dims.k, o.a.dtype);
  for (std::int64_t i = 0; i < sample.a.rows; ++i)
    for (std::int64_t k = 0; k < dims.k; ++k) *sample.a.at(i, k) = *o.a.at(i * 37, k);
  const ReferenceD ref = reference(sample);
  std::int64_t failures = 0;
  for (std::int64_t i = 0; i < sample.a.rows; ++i)
    for (std::int64_t j = 0; j < dims.n; ++j)
      failures += !within(r.d.get(i * 37, j), FRUGAL_DTYPE_FLOAT32, ref(i, j), 1.0f);
  CHECK(failures == 0);
}
