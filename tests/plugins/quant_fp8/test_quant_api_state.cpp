// quant_fp8's delayed scaling through the C API: the scale each call uses,
// against sequences worked out by hand from the recipe (scale = 448 *
// 2^-margin / reduced amax, the history rolling one entry per call), with
// FREEZE_SCALE and a non-finite amax; and export_state / import_state:
// a round trip reproduces the following scales exactly, and a corrupt,
// truncated or mismatched blob is an error that leaves the state alone.
#include <catch2/catch.hpp>

#include "test_seed.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "formats/fp8.hpp"
#include "quant_api_support.hpp"
#include "test_helpers.hpp"

using namespace frugal;
using namespace frugal::test;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// One call's outputs.
struct Step {
  std::vector<uint8_t> codes;
  float scale = 0.0f, scale_inv = 0.0f, amax = 0.0f;
};

// 64 random values in [-amax, amax] with one of them exactly -amax (or
// +Inf when amax is Inf), so the tensor's amax is known.
std::vector<float> tensor_with_amax(float amax, std::mt19937& rng) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<float> x(64);
  for (float& v : x) v = std::isinf(amax) ? unit(rng) : unit(rng) * amax;
  x[17] = std::isinf(amax) ? kInf : -amax;
  return x;
}

Step quantize(frugal_quantizer* q, const std::vector<float>& x, uint32_t flags = 0) {
  HostTensor in(FRUGAL_DTYPE_FLOAT32, {1, static_cast<int64_t>(x.size())});
  std::memcpy(in.view.data, x.data(), x.size() * 4);
  QuantTensor out(layout_of(q), {1, static_cast<int64_t>(x.size())}, 1, 1);
  frugal_quantize_args args{};
  args.struct_size = sizeof args;
  args.input = &in.view;
  args.output = &out.codes.view;
  args.flags = flags;
  host::check(frugal_quantizer_quantize(q, &args));
  Step s;
  s.codes = out.codes.payload();
  std::memcpy(&s.scale, out.scale.view.data, 4);
  std::memcpy(&s.scale_inv, out.scale_inv.view.data, 4);
  std::memcpy(&s.amax, out.amax.view.data, 4);
  return s;
}

host::QuantizerPtr delayed(frugal_context* context, int64_t history, const char* reduction, int64_t margin,
                           const char* format = "e4m3") {
  auto options =
      make_quant_options({{"format", format}, {"history", history}, {"reduction", reduction}, {"margin", margin}});
  return host::make_quantizer(context, "quant_fp8", options.get());
}

// Runs the calls and checks that call i quantized with scale used[i]:
// the scales written and every code (E4M3 of x * scale, saturating).
struct Call {
  float amax;
  uint32_t flags;
  float used_scale;
};

void check_sequence(frugal_quantizer* q, const std::vector<Call>& calls, uint32_t seed) {
  std::mt19937 rng(seed);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const Call& c = calls[i];
    INFO("call " << i << ": amax " << c.amax << ", expected scale " << c.used_scale);
    const std::vector<float> x = tensor_with_amax(c.amax, rng);
    const Step s = quantize(q, x, c.flags);
    CHECK(s.scale == c.used_scale);
    CHECK(s.scale_inv == 1.0f / c.used_scale);
    CHECK(s.amax == c.amax);
    int mismatches = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
      mismatches +=
          s.codes[k] != quant::fp32_to_fp8(x[k] * c.used_scale, quant::Fp8Format::e4m3fn, quant::Saturation::finite);
    }
    CHECK(mismatches == 0);
  }
}

std::vector<uint8_t> export_blob(frugal_quantizer* q) {
  return exported_state([&](void* b, size_t c, size_t* s) { return frugal_quantizer_export_state(q, b, c, s); });
}

}  // namespace

TEST_CASE("delayed scaling with max over a history of 3 follows the hand-computed scales") {
  auto context = quant_context();
  auto q = delayed(context.get(), 3, "max", 0);
  const uint32_t seed = frugal_test::test_seed32();
  INFO("seed " << seed);
  // History (most recent last) after each call, and the scale it gives:
  //   [2] 224, [2 7] 64, [2 7 1] 64, [7 1 .5] 64, [1 .5 3.5] 128,
  //   FREEZE (100 not recorded), [.5 3.5 1] 128, Inf recorded as 0:
  //   [3.5 1 0] scale kept 128, [1 0 .25] 448.
  check_sequence(q.get(),
                 {{2.0f, 0, 1.0f},
                  {7.0f, 0, 224.0f},
                  {1.0f, 0, 64.0f},
                  {0.5f, 0, 64.0f},
                  {3.5f, 0, 64.0f},
                  {100.0f, FRUGAL_QUANTIZE_FREEZE_SCALE, 128.0f},
                  {1.0f, 0, 128.0f},
                  {kInf, 0, 128.0f},
                  {0.25f, 0, 128.0f},
                  {1.0f, 0, 448.0f}},
                 seed);
}

TEST_CASE("delayed scaling with most_recent and margin 1 follows the hand-computed scales") {
  auto context = quant_context();
  auto q = delayed(context.get(), 16, "most_recent", 1);
  const uint32_t seed = frugal_test::test_seed32();
  INFO("seed " << seed);
  // scale = 448 / 2 / amax of the call before; an all-zero call keeps it.
  check_sequence(
      q.get(),
      {{2.0f, 0, 1.0f}, {7.0f, 0, 112.0f}, {1.0f, 0, 32.0f}, {0.0f, 0, 224.0f}, {448.0f, 0, 224.0f}, {3.0f, 0, 0.5f}},
      seed);
}

TEST_CASE("concurrent quantize calls on one delayed quantizer each record their amax") {
  // The strategy is THREAD_SAFE: calls serialise on the state. With a
  // history longer than all calls together and `max`, the final scale
  // comes from the largest amax, whichever thread recorded it and when.
  auto context = quant_context();
  auto q = delayed(context.get(), 256, "max", 0);
  const uint32_t seed = frugal_test::test_seed32();
  INFO("seed " << seed);
  constexpr int kThreads = 4, kCalls = 20;
  {
    std::vector<std::jthread> workers;
    for (int t = 0; t < kThreads; ++t) {
      workers.emplace_back([&, t] {
        std::mt19937 rng(seed + static_cast<uint32_t>(t));
        // Thread 2's last call holds the largest amax, 7: scale 448 / 7 = 64.
        for (int i = 0; i < kCalls; ++i) {
          const float amax = t == 2 && i == kCalls - 1 ? 7.0f : 0.5f + 0.25f * static_cast<float>(i % 5);
          quantize(q.get(), tensor_with_amax(amax, rng));
        }
      });
    }
  }
  std::mt19937 rng(seed);
  CHECK(quantize(q.get(), tensor_with_amax(1.0f, rng), FRUGAL_QUANTIZE_FREEZE_SCALE).scale == 64.0f);
}

TEST_CASE("export_state and import_state carry the delayed state exactly") {
  auto context = quant_context();
  const uint32_t seed = frugal_test::test_seed32();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  auto a = delayed(context.get(), 4, "max", 0);
  for (const float amax : {3.0f, 5.0f, 0.75f}) quantize(a.get(), tensor_with_amax(amax, rng));
  const std::vector<uint8_t> blob = export_blob(a.get());
  REQUIRE(!blob.empty());

  // Too small a buffer: OUT_OF_RANGE, with the size reported.
  std::vector<uint8_t> small(blob.size() - 1);
  size_t size = 0;
  expect_error(frugal_quantizer_export_state(a.get(), small.data(), small.size(), &size), FRUGAL_ERR_OUT_OF_RANGE, {});
  CHECK(size == blob.size());

  // A twin with the same options takes the state over and then scales
  // exactly like the original, call after call.
  auto b = delayed(context.get(), 4, "max", 0);
  host::check(frugal_quantizer_import_state(b.get(), blob.data(), blob.size()));
  CHECK(export_blob(b.get()) == blob);
  for (const float amax : {1.5f, 9.0f, 0.125f, 2.0f}) {
    const std::vector<float> x = tensor_with_amax(amax, rng);
    const Step sa = quantize(a.get(), x), sb = quantize(b.get(), x);
    CHECK(sb.scale == sa.scale);
    CHECK(sb.scale_inv == sa.scale_inv);
    CHECK(sb.codes == sa.codes);
  }
  CHECK(export_blob(b.get()) == export_blob(a.get()));

  // Every bad blob is refused and leaves b's state as it was.
  const std::vector<uint8_t> before = export_blob(b.get());
  std::vector<uint8_t> corrupt = blob;
  corrupt[corrupt.size() / 2] ^= 0x10;
  expect_error(frugal_quantizer_import_state(b.get(), corrupt.data(), corrupt.size()), FRUGAL_ERR_DATA_CORRUPTED,
               {"checksum"});
  // One byte short: the checksum no longer matches (the trailer moved).
  expect_error(frugal_quantizer_import_state(b.get(), blob.data(), blob.size() - 1), FRUGAL_ERR_DATA_CORRUPTED,
               {"checksum"});
  expect_error(frugal_quantizer_import_state(b.get(), blob.data(), 3), FRUGAL_ERR_DATA_CORRUPTED, {"truncated"});
  CHECK(export_blob(b.get()) == before);

  // A blob saved under other options names the option.
  auto longer = delayed(context.get(), 8, "max", 0);
  const std::vector<uint8_t> longer_before = export_blob(longer.get());
  expect_error(frugal_quantizer_import_state(longer.get(), blob.data(), blob.size()), FRUGAL_ERR_INVALID_ARGUMENT,
               {"history"});
  CHECK(export_blob(longer.get()) == longer_before);
  auto recent = delayed(context.get(), 4, "most_recent", 0);
  expect_error(frugal_quantizer_import_state(recent.get(), blob.data(), blob.size()), FRUGAL_ERR_INVALID_ARGUMENT,
               {"reduction"});
  auto margin = delayed(context.get(), 4, "max", 2);
  expect_error(frugal_quantizer_import_state(margin.get(), blob.data(), blob.size()), FRUGAL_ERR_INVALID_ARGUMENT,
               {"margin"});
  auto e5m2 = delayed(context.get(), 4, "max", 0, "e5m2");
  expect_error(frugal_quantizer_import_state(e5m2.get(), blob.data(), blob.size()), FRUGAL_ERR_INVALID_ARGUMENT,
               {"format"});
}

TEST_CASE("stateless recipes export nothing and accept only an empty state") {
  auto context = quant_context();
  for (const char* recipe : {"current", "per_channel", "block", "mx"}) {
    INFO(recipe);
    auto options = make_quant_options({{"recipe", recipe}});
    auto q = host::make_quantizer(context.get(), "quant_fp8", options.get());
    size_t size = 99;
    host::check(frugal_quantizer_export_state(q.get(), nullptr, 0, &size));
    CHECK(size == 0);
    host::check(frugal_quantizer_import_state(q.get(), nullptr, 0));
    const uint8_t byte = 1;
    expect_error(frugal_quantizer_import_state(q.get(), &byte, 1), FRUGAL_ERR_INVALID_ARGUMENT, {recipe, "no state"});
  }
}

TEST_CASE("loss scaler state: a restored skipped_steps at its maximum stays there (no signed overflow)") {
  // The state passes every import check (scale in range, counters >= 0);
  // the next overflowing step used to increment INT64_MAX (undefined; in
  // practice it wrapped to INT64_MIN, a count the next import refuses).
  auto scaler = host::make_loss_scaler(nullptr);
  const int64_t most = std::numeric_limits<int64_t>::max();
  const frugal_loss_scaler_status saved{sizeof(frugal_loss_scaler_status), 1024.0, 0, most};
  host::check(frugal_loss_scaler_set_status(scaler.get(), &saved));
  host::check(frugal_loss_scaler_update(scaler.get(), 1, nullptr));
  frugal_loss_scaler_status now{};
  now.struct_size = sizeof(now);
  host::check(frugal_loss_scaler_get_status(scaler.get(), &now));
  CHECK(now.skipped_steps == most);
  CHECK(now.scale == 512.0);
  host::check(frugal_loss_scaler_set_status(scaler.get(), &now));  // what it exports, it imports
}

TEST_CASE("loss scaler state: a refused field is named with its value and nothing changes") {
  auto scaler = host::make_loss_scaler(nullptr);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const struct {
    frugal_loss_scaler_status state;
    const char* message;
  } cases[] = {
      {{sizeof(frugal_loss_scaler_status), nan, 0, 0}, "restored scale nan must be in [1, 16777216]"},
      {{sizeof(frugal_loss_scaler_status), 0.5, 0, 0}, "restored scale 0.5 must be in [1, 16777216]"},
      {{sizeof(frugal_loss_scaler_status), 4.0, 2000, 0}, "restored clean_steps 2000 must be in [0, 2000)"},
      {{sizeof(frugal_loss_scaler_status), 4.0, -1, 0}, "restored clean_steps -1 must be in [0, 2000)"},
      {{sizeof(frugal_loss_scaler_status), 4.0, 0, -5}, "restored skipped_steps -5 must be >= 0"},
  };
  for (const auto& c : cases) {
    const auto result = outcome(frugal_loss_scaler_set_status(scaler.get(), &c.state));
    INFO(result.message);
    CHECK(result.code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(result.message.find(c.message) != std::string::npos);
    CHECK(frugal_loss_scaler_scale(scaler.get()) == 65536.0);
  }
}
