// What the amax_comm tests share (test_quant_amax_comm.cpp in one process,
// amax_ranks.cpp under mpirun): every rank's data at every step, which any
// process can generate, and per-tensor quantize calls through the C API.
// Header-only, on libfrugal and the SDK alone (no Catch2: amax_ranks is a
// plain MPI program).
//
// The check both make: a quantizer whose amax is agreed over a group must
// behave, call after call, exactly like one quantizer (no comm) fed all
// ranks' tensors stacked, since the max over the stack is the max over the
// ranks: the same scale, the same state blob, and the codes of this rank's
// rows of the stack.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "frugal/sdk/host.hpp"

namespace frugal::test::amax {

inline constexpr int64_t kRows = 4;
inline constexpr int64_t kCols = 48;
// Steps whose tensor on one rank holds +Inf or NaN (the recipes keep their
// scale; the group must agree on that too).
inline constexpr int kInfStep = 6;
inline constexpr int kNanStep = 11;

// Rank `rank`'s kRows x kCols tensor at `step`: values in [-m, m] with m a
// power of two from 2^-4 to 2^4 times a factor in [0.5, 1), so which rank
// holds the group's max changes from step to step. At kInfStep rank
// (step % ranks) holds +Inf, at kNanStep a NaN.
inline std::vector<float> rank_data(uint32_t seed, int rank, int ranks, int step) {
  std::seed_seq seq{seed, static_cast<uint32_t>(rank), static_cast<uint32_t>(step)};
  std::mt19937 rng(seq);
  const int exponent = std::uniform_int_distribution<int>(-4, 4)(rng);
  const float m = std::ldexp(std::uniform_real_distribution<float>(0.5f, 1.0f)(rng), exponent);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(kRows * kCols));
  for (float& v : x) v = unit(rng) * m;
  if (rank == step % ranks) {
    if (step == kInfStep) x[kCols + 3] = std::numeric_limits<float>::infinity();
    if (step == kNanStep) x[2 * kCols + 5] = std::numeric_limits<float>::quiet_NaN();
  }
  return x;
}

// Every rank's tensor at `step`, stacked: (ranks * kRows) x kCols.
inline std::vector<float> stacked_data(uint32_t seed, int ranks, int step) {
  std::vector<float> all;
  for (int r = 0; r < ranks; ++r) {
    const std::vector<float> x = rank_data(seed, r, ranks, step);
    all.insert(all.end(), x.begin(), x.end());
  }
  return all;
}

// The amax quantize reports for `x`: NaN when any element is NaN, else max |x|.
inline float amax_of(const std::vector<float>& x) {
  float m = 0.0f;
  for (const float v : x) {
    if (std::isnan(v)) return std::numeric_limits<float>::quiet_NaN();
    m = std::fabs(v) > m ? std::fabs(v) : m;
  }
  return m;
}

// One per-tensor quantize call's outputs.
struct Quantized {
  std::vector<uint8_t> codes;  // rows * cols, one byte each (FP8 or INT8)
  float scale = 0.0f, scale_inv = 0.0f, amax = 0.0f;
};

inline bool same_float(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof(float)) == 0;
}

// Quantizes rows x cols fp32 `x` with per-tensor quantizer q into `out`
// (codes pre-filled with 0xEE, so a call that writes nothing shows).
// Returns the call's error (NULL on success), owned by the caller.
inline frugal_error* quantize(frugal_quantizer* q, const std::vector<float>& x, int64_t rows, uint32_t flags,
                              Quantized& out) {
  frugal_quant_layout layout{};
  layout.struct_size = sizeof(layout);
  if (frugal_error* e = frugal_quantizer_layout(q, &layout)) return e;
  out.codes.assign(static_cast<size_t>(rows * kCols), 0xEE);
  out.scale = out.scale_inv = out.amax = -1.0f;
  int64_t shape[2] = {rows, kCols};
  int64_t one = 1;
  const auto scalar = [&](float* value) {
    frugal_tensor t{};
    t.struct_size = sizeof(t);
    t.data = value;
    t.dtype = FRUGAL_DTYPE_FLOAT32;
    t.ndim = 1;
    t.device = {FRUGAL_DEVICE_CPU, 0};
    t.shape = &one;
    return t;
  };
  frugal_tensor scale = scalar(&out.scale), scale_inv = scalar(&out.scale_inv), amax = scalar(&out.amax);
  frugal_quant_meta meta{};
  meta.struct_size = sizeof(meta);
  meta.scaling_mode = layout.scaling_mode;
  meta.scale = &scale;
  meta.scale_inv = &scale_inv;
  meta.amax = &amax;
  frugal_tensor input{};
  input.struct_size = sizeof(input);
  input.data = const_cast<float*>(x.data());
  input.dtype = FRUGAL_DTYPE_FLOAT32;
  input.ndim = 2;
  input.device = {FRUGAL_DEVICE_CPU, 0};
  input.shape = shape;
  frugal_tensor output = input;
  output.data = out.codes.data();
  output.dtype = layout.dtype;
  output.quant = &meta;
  frugal_quantize_args args{};
  args.struct_size = sizeof(args);
  args.input = &input;
  args.output = &output;
  args.flags = flags;
  return frugal_quantizer_quantize(q, &args);
}

// Rows [first, first + count) of `q`'s codes.
inline std::vector<uint8_t> rows_of(const Quantized& q, int64_t first, int64_t count) {
  const auto begin = q.codes.begin() + static_cast<std::ptrdiff_t>(first * kCols);
  return {begin, begin + static_cast<std::ptrdiff_t>(count * kCols)};
}

// The state blob (empty for the stateless recipes); throws host::Exception.
inline std::vector<uint8_t> state_of(frugal_quantizer* q) {
  size_t size = 0;
  host::check(frugal_quantizer_export_state(q, nullptr, 0, &size));
  std::vector<uint8_t> blob(size);
  if (size > 0) host::check(frugal_quantizer_export_state(q, blob.data(), blob.size(), &size));
  return blob;
}

// FNV-1a, to compare blobs across ranks by one number.
inline uint64_t hash_of(const std::vector<uint8_t>& bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ULL;
  return h;
}

// The recipes the tests run: options as (name, value) text pairs.
struct Recipe {
  const char* name;
  std::vector<std::pair<const char*, const char*>> options;
  bool stateful;
};
inline const std::vector<Recipe>& recipes() {
  static const std::vector<Recipe> all = {
      {"delayed e4m3, history 4, max", {{"format", "e4m3"}, {"recipe", "delayed"}, {"history", "4"}}, true},
      {"delayed e5m2, most_recent, margin 1",
       {{"format", "e5m2"}, {"recipe", "delayed"}, {"history", "8"}, {"reduction", "most_recent"}, {"margin", "1"}},
       true},
      {"current e4m3", {{"format", "e4m3"}, {"recipe", "current"}}, false},
      {"current int8", {{"format", "int8"}, {"recipe", "current"}}, false},
  };
  return all;
}

// A quant_fp8 quantizer of `recipe`, with `comm` as amax_comm when not NULL.
inline host::QuantizerPtr make_quantizer(frugal_context* context, const Recipe& recipe, frugal_comm* comm) {
  auto options = host::make_options();
  for (const auto& [name, value] : recipe.options) host::check(frugal_options_set_parsed(options.get(), name, value));
  if (comm != nullptr) host::check(frugal_options_set_comm(options.get(), "amax_comm", comm));
  return host::make_quantizer(context, "quant_fp8", options.get());
}

}  // namespace frugal::test::amax
