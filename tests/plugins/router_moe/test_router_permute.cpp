// Permute and combine: permute then combine with unit weights is the
// identity, weighted combine matches an fp64 sum, and any thread count
// gives the same bytes.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "algorithms/dispatch_plan.hpp"
#include "algorithms/permute.hpp"
#include "formats/half.hpp"
#include "router_test_support.hpp"

using namespace frugal::router;
using frugal::quant::bf16_to_fp32;
using frugal::quant::fp32_to_bf16;

namespace {

std::vector<uint16_t> random_bf16(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.0f, 3.0f);
  std::vector<uint16_t> v(n);
  for (auto& x : v) x = fp32_to_bf16(d(rng));
  return v;
}

std::vector<float> widen(const std::vector<uint16_t>& v) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = bf16_to_fp32(v[i]);
  return out;
}

}  // namespace

TEST_CASE("permute then combine with unit weights is the identity (bf16 and fp32)") {
  const int64_t T = 97, E = 8, H = 40;
  Routing r = test::random_routing(T, E, 1, 23);
  std::fill(r.weight.begin(), r.weight.end(), 1.0f);
  const DispatchPlan p = build_dispatch_plan(r);
  const auto x = random_bf16(T * H, 1);
  std::vector<uint16_t> rows(p.rows() * H), back(T * H);
  permute_rows(p, x, H, rows);
  for (int64_t row = 0; row < p.rows(); ++row) {
    CHECK(std::equal(rows.begin() + row * H, rows.begin() + (row + 1) * H, x.begin() + p.row_token[row] * H));
  }
  combine_rows(p, rows, H, back);
  CHECK(back == x);
  const auto xf = widen(x);
  std::vector<float> rows_f(p.rows() * H), back_f(T * H);
  permute_rows(p, xf, H, rows_f);
  combine_rows(p, rows_f, H, back_f);
  CHECK(back_f == xf);
}

TEST_CASE("combine: k assignments with their weights, fp32 accumulation, dropped tokens get zeros") {
  const int64_t T = 64, E = 6, k = 3, H = 24;
  const Routing r = test::random_routing(T, E, k, 29);
  const DispatchPlan p = build_dispatch_plan(r, CapacityOptions{DropPolicy::by_position, 0.5});
  REQUIRE(p.dropped_count() > 0);
  const auto y = random_bf16(p.rows() * H, 2);
  std::vector<uint16_t> out(T * H);
  combine_rows(p, y, H, out);
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t h = 0; h < H; ++h) {
      double expect = 0;
      for (int64_t s = t * k; s < (t + 1) * k; ++s) {
        if (p.slot_row[s] >= 0) expect += double{r.weight[s]} * bf16_to_fp32(y[p.slot_row[s] * H + h]);
      }
      // One bf16 rounding (2^-8 relative) plus fp32 accumulation.
      CHECK(bf16_to_fp32(out[t * H + h]) == Approx(expect).epsilon(1.0 / 256).margin(1e-6));
    }
  }
}

TEST_CASE("permute and combine: identical bytes for any thread count") {
  const int64_t T = 300, E = 16, k = 4, H = 700;  // 93 rows per block: several blocks
  const Routing r = test::random_routing(T, E, k, 31);
  const DispatchPlan p = build_dispatch_plan(r);
  const auto x = random_bf16(T * H, 3);
  std::vector<uint16_t> rows1(p.rows() * H), out1(T * H);
  permute_rows(p, x, H, rows1, 1);
  combine_rows(p, rows1, H, out1, 1);
  for (unsigned threads : {2u, 3u, 7u}) {
    std::vector<uint16_t> rows(p.rows() * H), out(T * H);
    permute_rows(p, x, H, rows, threads);
    combine_rows(p, rows, H, out, threads);
    CHECK(rows == rows1);
    CHECK(out == out1);
  }
  std::vector<uint16_t> wrong(T * H - 1);
  CHECK_THROWS_AS(permute_rows(p, wrong, H, rows1), RouterError);
  CHECK_THROWS_AS(combine_rows(p, rows1, H, wrong), RouterError);
}

TEST_CASE("permute and combine on strided views: the compact bytes, padding untouched, widths must agree") {
  using frugal::sdk::MatrixView;
  const int64_t T = 40, E = 8, k = 2, H = 13, S = H + 3;  // S: the padded row stride
  const DispatchPlan p = build_dispatch_plan(test::random_routing(T, E, k, 7));
  const int64_t R = p.rows();
  const auto x = random_bf16(static_cast<std::size_t>(T * H), 5);
  std::vector<uint16_t> rows(static_cast<std::size_t>(R * H)), out(static_cast<std::size_t>(T * H));
  permute_rows(p, x, H, rows, 1);
  combine_rows(p, rows, H, out, 1);

  constexpr uint16_t kPad = 0xFFFF;  // bf16 NaN: never a result
  std::vector<uint16_t> xs(static_cast<std::size_t>(T * S), kPad);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < H; ++h) xs[static_cast<std::size_t>(t * S + h)] = x[static_cast<std::size_t>(t * H + h)];
  std::vector<uint16_t> rows_s(static_cast<std::size_t>(R * S), kPad), out_s(static_cast<std::size_t>(T * S), kPad);
  const MatrixView<const uint16_t> xv(xs.data(), T, H, S);
  permute_rows<uint16_t>(p.row_token, xv, MatrixView<uint16_t>(rows_s.data(), R, H, S), 2);
  combine_rows<uint16_t>(p.token_offsets, p.token_rows, p.row_weight,
                         MatrixView<const uint16_t>(rows_s.data(), R, H, S),
                         MatrixView<uint16_t>(out_s.data(), T, H, S), 2);
  int64_t differ = 0, pad_written = 0;
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t h = 0; h < S; ++h) {
      const uint16_t v = out_s[static_cast<std::size_t>(t * S + h)];
      if (h >= H)
        pad_written += v != kPad;
      else
        differ += v != out[static_cast<std::size_t>(t * H + h)];
    }
  }
  CHECK(differ == 0);
  CHECK(pad_written == 0);

  std::vector<uint16_t> narrow(static_cast<std::size_t>(R * S));
  CHECK_THROWS_WITH(permute_rows<uint16_t>(p.row_token, xv, MatrixView<uint16_t>(narrow.data(), R, H - 1, S), 1),
                    "permute: rows of 13 and 12 elements");
}
