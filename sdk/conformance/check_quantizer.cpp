// Quantizers on real tensors (quantizer_vtable.h): a CPU fp32 input is
// quantized into codes and scale tensors shaped from the instance's layout
// and dequantized back. Checks the round trip's error, determinism, thread
// safety, argument struct sizes, NULL tensors, and that libfrugal hands the
// plugin the same data as a direct call.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "host_tensors.hpp"
#include "quantizer_checks.hpp"

namespace frugal::conformance {

namespace {

constexpr int64_t kRows = 64;
constexpr int64_t kCols = 96;  // not a multiple of 128: block grids get a partial block

// Scale-grid extent of one dimension: a block of 0 is the whole dimension.
int64_t grid(int64_t n, int32_t block) { return block <= 0 ? 1 : (n + block - 1) / block; }

// Codes plus the scale tensors of the layout, wired into output->quant as
// quantizer_vtable.h describes (scale_inv always, amax, the zero point
// extension when the layout has one).
struct Quantized {
  Quantized(const frugal_quant_layout& l, int64_t rows, int64_t cols)
      : layout(l),
        codes(l.dtype, rows, cols),
        scale_inv(l.scale_dtype, grid(rows, l.block_rows), grid(cols, l.block_cols)),
        amax(FRUGAL_DTYPE_FLOAT32, 1, 1),
        zero_point(FRUGAL_DTYPE_INT8, grid(rows, l.block_rows), grid(cols, l.block_cols)) {
    meta.struct_size = sizeof meta;
    meta.scaling_mode = l.scaling_mode;
    meta.block_rows = l.block_rows;
    meta.block_cols = l.block_cols;
    meta.scale_inv = scale_inv.view();
    meta.amax = amax.view();
    if (l.flags & FRUGAL_QUANT_LAYOUT_ZERO_POINT) {
      zp.header = {sizeof zp, FRUGAL_EXT_QUANT_ZERO_POINT, 0, nullptr};
      zp.zero_point = zero_point.view();
      meta.ext = &zp.header;
    }
    codes.view()->quant = &meta;
  }
  Quantized(const Quantized&) = delete;
  Quantized& operator=(const Quantized&) = delete;

  [[nodiscard]] std::vector<unsigned char> bytes() const {
    std::vector<unsigned char> out;
    codes.append_to(out);
    scale_inv.append_to(out);
    amax.append_to(out);
    if (meta.ext != nullptr) zero_point.append_to(out);
    return out;
  }

  frugal_quant_layout layout;
  HostTensor codes, scale_inv, amax, zero_point;
  frugal_quant_meta meta{};
  frugal_quant_zero_point_ext zp{};
};

// The smallest argument structs a v2.0 caller may pass: through `output`,
// the last field the headers mark "never NULL".
constexpr size_t kQuantizeMin = offsetof(frugal_quantize_call, output) + sizeof(void*);
constexpr size_t kDequantizeMin = offsetof(frugal_dequantize_call, output) + sizeof(void*);

// A quantize of x into q: the plugin's frugal_quantize_call, or the host's
// frugal_quantize_args for libfrugal (same fields, two types).
template <typename Args = frugal_quantize_call>
Args quantize_args(const HostTensor& x, Quantized& q, uint32_t flags) {
  Args a{};
  a.struct_size = sizeof a;
  a.input = x.view();
  a.output = q.codes.view();
  a.flags = flags;
  return a;
}

// quantize with args of struct_size `size` (below, equal to or above ours).
Error quantize(const frugal_quantizer_vtable* vt, void* instance, const HostTensor& x, Quantized& q, uint32_t flags = 0,
               size_t size = sizeof(frugal_quantize_call)) {
  Larger<frugal_quantize_call> big{};
  big.args = quantize_args(x, q, flags);
  big.args.struct_size = size;
  return Error(vt->quantize(instance, &big.args));
}

Error dequantize(const frugal_quantizer_vtable* vt, void* instance, const Quantized& q, HostTensor& out,
                 size_t size = sizeof(frugal_dequantize_call)) {
  Larger<frugal_dequantize_call> big{};
  big.args = {size, q.codes.view(), out.view(), nullptr};
  return Error(vt->dequantize(instance, &big.args));
}

frugal_quant_layout layout_of(const frugal_quantizer_vtable* vt, void* instance) {
  frugal_quant_layout l{};
  l.struct_size = sizeof l;
  const Error e(vt->layout(instance, &l));
  if (e) throw std::runtime_error("layout: " + e.describe());
  return l;
}

// The standard input, and the per-thread ones (seeds 2..).
std::unique_ptr<HostTensor> input(uint64_t seed) {
  auto x = std::make_unique<HostTensor>(FRUGAL_DTYPE_FLOAT32, kRows, kCols);
  Random(seed).fill(*x, 3.0f);
  return x;
}

// Mantissa bits of the element format: the rounding step relative to the
// values a scale maps to the format's top. INT8's 127 levels a side are
// 7 bits.
int mantissa_bits(int32_t dtype) {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT8_E4M3FN: return 3;
    case FRUGAL_DTYPE_FLOAT8_E5M2: return 2;
    default: return 7;
  }
}

// The largest |x - deq(q(x))| allowed: amax * 2^-m. A scale maps a block's
// amax near the format's largest value, where round-to-nearest errs by at
// most half a step, amax * 2^-(m+1); smaller values err less (their step is
// smaller), subnormals by a step far below that. The factor 2 of headroom
// covers MX's power-of-two scales, which may clip a block's top values by
// up to 1/8 of its amax (e4m3: amax/X < 512 is clipped to 448), and INT8's
// step amax/127 (error amax/254). Blocks use the tensor's amax, a looser
// bound than their own.
float round_trip_bound(const frugal_quant_layout& l, float amax) { return std::ldexp(amax, -mantissa_bits(l.dtype)); }

// "" when every element is within the bound, else the first that is not.
std::string round_trip_error(const frugal_quant_layout& l, const HostTensor& x, const HostTensor& back) {
  float amax = 0;
  for (int64_t i = 0; i < x.elements(); ++i) amax = std::max(amax, std::fabs(x.data<float>()[i]));
  const float bound = round_trip_bound(l, amax);
  for (int64_t i = 0; i < x.elements(); ++i) {
    const float v = x.data<float>()[i], d = back.data<float>()[i];
    if (!(std::fabs(v - d) <= bound))
      return "element (" + std::to_string(i / kCols) + ", " + std::to_string(i % kCols) + "): " + std::to_string(v) +
             " came back as " + std::to_string(d) + "; the bound is amax * 2^-" +
             std::to_string(mantissa_bits(l.dtype)) + " = " + std::to_string(bound);
  }
  return "";
}

// The bytes of quantizing `x` twice on `instance` (see quantize_result).
std::vector<unsigned char> twice(const frugal_quantizer_vtable* vt, void* instance, const HostTensor& x,
                                 size_t size = sizeof(frugal_quantize_call)) {
  const frugal_quant_layout l = layout_of(vt, instance);
  std::vector<unsigned char> out;
  for (int call = 0; call < 2; ++call) {
    Quantized q(l, kRows, kCols);
    const Error e = quantize(vt, instance, x, q, 0, size);
    if (e) {
      const std::string text = "quantize failed: " + e.describe();
      out.insert(out.end(), text.begin(), text.end());
      return out;
    }
    const auto b = q.bytes();
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

void check_round_trip(Checks& c, const frugal_quantizer_vtable* vt, void* a, const HostTensor& x) {
  c.begin("round-trip");
  const frugal_quant_layout l = layout_of(vt, a);
  // A warm-up call first: a delayed-scaling recipe quantizes with the scale
  // of earlier amaxes, so the measured call sees this input's amax.
  Quantized warm(l, kRows, kCols), q(l, kRows, kCols);
  HostTensor back(FRUGAL_DTYPE_FLOAT32, kRows, kCols);
  if (!c.expect_ok("round-trip", "quantize of a 64x96 fp32 CPU tensor", quantize(vt, a, x, warm).release()) ||
      !c.expect_ok("round-trip", "quantize again", quantize(vt, a, x, q).release()) ||
      !c.expect_ok("round-trip", "dequantize of its codes", dequantize(vt, a, q, back).release()))
    return;
  const std::string bad = round_trip_error(l, x, back);
  c.check(bad.empty(), "round-trip",
          bad.empty() ? "|x - dequantize(quantize(x))| <= amax * 2^-" + std::to_string(mantissa_bits(l.dtype)) +
                            " for every element (the element format's rounding step)"
                      : bad);
}

void check_null_tensors(Checks& c, const frugal_quantizer_vtable* vt, void* a, const HostTensor& x) {
  c.begin("null-arguments");
  Quantized q(layout_of(vt, a), kRows, kCols);
  HostTensor back(FRUGAL_DTYPE_FLOAT32, kRows, kCols);
  frugal_quantize_call args = quantize_args(x, q, FRUGAL_QUANTIZE_FREEZE_SCALE);
  args.input = nullptr;
  c.expect_error("null-arguments", "quantize(args->input NULL)", vt->quantize(a, &args));
  args = quantize_args(x, q, FRUGAL_QUANTIZE_FREEZE_SCALE);
  args.output = nullptr;
  c.expect_error("null-arguments", "quantize(args->output NULL)", vt->quantize(a, &args));
  frugal_dequantize_call d{sizeof(frugal_dequantize_call), nullptr, back.view(), nullptr};
  c.expect_error("null-arguments", "dequantize(args->input NULL)", vt->dequantize(a, &d));
  d = {sizeof(frugal_dequantize_call), q.codes.view(), nullptr, nullptr};
  c.expect_error("null-arguments", "dequantize(args->output NULL)", vt->dequantize(a, &d));
}

// Fresh instances given the v2.0 minimum, this header's and a larger args
// struct quantize (and dequantize) to the same bytes.
void check_args_sizes(Checks& c, const frugal_quantizer_vtable* vt, const HostTensor& x) {
  c.begin("struct-size");
  Instance small = c.create("struct-size"), plain = c.create("struct-size"), big = c.create("struct-size");
  if (!small || !plain || !big) return;
  const size_t larger = sizeof(Larger<frugal_quantize_call>);
  const auto reference = twice(vt, plain.get(), x);
  c.check(twice(vt, small.get(), x, kQuantizeMin) == reference && twice(vt, big.get(), x, larger) == reference,
          "struct-size",
          "quantize args of struct_size " + std::to_string(kQuantizeMin) + " (v2.0 minimum), " +
              std::to_string(sizeof(frugal_quantize_call)) + " and " + std::to_string(larger) +
              " (zeroed tail) give identical codes and scales");
  const frugal_quant_layout l = layout_of(vt, plain.get());
  Quantized q(l, kRows, kCols);
  HostTensor b1(FRUGAL_DTYPE_FLOAT32, kRows, kCols), b2(FRUGAL_DTYPE_FLOAT32, kRows, kCols),
      b3(FRUGAL_DTYPE_FLOAT32, kRows, kCols);
  const bool ok = !quantize(vt, plain.get(), x, q, FRUGAL_QUANTIZE_FREEZE_SCALE) &&
                  !dequantize(vt, plain.get(), q, b1, kDequantizeMin) && !dequantize(vt, plain.get(), q, b2) &&
                  !dequantize(vt, plain.get(), q, b3, sizeof(Larger<frugal_dequantize_call>));
  c.check(ok && b1.bytes() == b2.bytes() && b2.bytes() == b3.bytes(), "struct-size",
          "dequantize args of struct_size " + std::to_string(kDequantizeMin) + ", " +
              std::to_string(sizeof(frugal_dequantize_call)) + " and " +
              std::to_string(sizeof(Larger<frugal_dequantize_call>)) + " give identical values");
}

// Concurrent quantize calls on one instance, each on its own input and
// outputs, with FRUGAL_QUANTIZE_FREEZE_SCALE: a stateful recipe then reads
// its state without recording, so the results cannot depend on call order
// and must equal sequential calls bytewise.
void check_thread_safety(Checks& c, const frugal_quantizer_vtable* vt, void* a) {
  c.begin("thread-safety (frozen scale)");
  constexpr int kThreads = 4;
  const frugal_quant_layout l = layout_of(vt, a);
  std::vector<std::unique_ptr<HostTensor>> inputs;
  std::vector<std::vector<unsigned char>> expected;
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(input(2 + t));
    Quantized q(l, kRows, kCols);
    const Error e = quantize(vt, a, *inputs.back(), q, FRUGAL_QUANTIZE_FREEZE_SCALE);
    if (e) return c.fail("thread-safety (frozen scale)", "quantize (sequential) failed: " + e.describe());
    expected.push_back(q.bytes());
  }
  std::vector<int> same(kThreads, 1);
  run_concurrently(kThreads, [&](int t) {
    for (int round = 0; round < 8; ++round) {
      Quantized q(l, kRows, kCols);
      const Error e = quantize(vt, a, *inputs[t], q, FRUGAL_QUANTIZE_FREEZE_SCALE);
      same[t] = same[t] && !e && q.bytes() == expected[t];
    }
  });
  const bool all = std::all_of(same.begin(), same.end(), [](int v) { return v != 0; });
  c.check(all, "thread-safety (frozen scale)",
          all ? "4 threads quantizing on one instance (own inputs and outputs, FRUGAL_QUANTIZE_FREEZE_SCALE) give "
                "the bytes of sequential calls (FRUGAL_STRATEGY_THREAD_SAFE)"
              : "concurrent quantize calls on one instance give other bytes than sequential calls despite "
                "FRUGAL_STRATEGY_THREAD_SAFE");
}

}  // namespace

std::vector<unsigned char> quantize_result(const frugal_quantizer_vtable* vt, void* instance) {
  return twice(vt, instance, *input(1));
}

std::vector<unsigned char> core_quantize_result(frugal_quantizer* quantizer, std::string& error) {
  frugal_quant_layout l{};
  l.struct_size = sizeof l;
  if (const Error e(frugal_quantizer_layout(quantizer, &l)); e) {
    error = "frugal_quantizer_layout: " + e.describe();
    return {};
  }
  const auto x = input(1);
  std::vector<unsigned char> out;
  for (int call = 0; call < 2; ++call) {
    Quantized q(l, kRows, kCols);
    const auto args = quantize_args<frugal_quantize_args>(*x, q, 0);
    if (const Error e(frugal_quantizer_quantize(quantizer, &args)); e) {
      error = "frugal_quantizer_quantize: " + e.describe();
      return {};
    }
    const auto b = q.bytes();
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

void check_quantizer_tensors(Checks& c, void* a) {
  const auto* vt = static_cast<const frugal_quantizer_vtable*>(c.s.vtable);
  const auto x = input(1);
  if (!c.core_result.empty()) {
    c.begin("core-parity");
    Instance fresh = c.create("core-parity");
    if (fresh)
      c.check(quantize_result(vt, fresh.get()) == c.core_result, "core-parity",
              "frugal_quantizer_quantize and a direct quantize call on the same input give the same bytes");
  }
  check_round_trip(c, vt, a, *x);
  check_null_tensors(c, vt, a, *x);
  check_args_sizes(c, vt, *x);
  if (c.s.flags & FRUGAL_STRATEGY_DETERMINISTIC) {
    c.begin("determinism");
    Instance b1 = c.create("determinism"), b2 = c.create("determinism");
    if (b1 && b2)
      c.check(quantize_result(vt, b1.get()) == quantize_result(vt, b2.get()), "determinism",
              "two instances with the same options quantize one input to identical codes and scales, call after "
              "call (FRUGAL_STRATEGY_DETERMINISTIC)");
  }
  if (c.s.flags & FRUGAL_STRATEGY_THREAD_SAFE) check_thread_safety(c, vt, a);
}

}  // namespace frugal::conformance
