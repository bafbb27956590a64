// GPU check of quant_fp8's CUDA path, through the public C API. Needs a
// CUDA device; without one it prints "SKIP: no CUDA device" and exits 0
// (ctest shows it as skipped).
//
//   quantize    every recipe x fp8 format x input dtype x {plain, fake, fake
//               in place, output_t, output_t + fake} on several shapes
//               (one element, partial blocks, padded rows, special values):
//               the same call on CPU tensors and on CUDA tensors, every byte
//               compared: codes, scale_inv, scale, amax, output_t and its
//               scales, fake, and the padding (which must stay untouched);
//               delayed scaling over two calls and its exported state; both
//               saturation modes for the per-tensor recipes;
//   dequantize  of those codes into the input dtype, byte for byte;
//   gemm        FP8 x FP8 -> fp32 / bf16 / fp8 for several m, n, k against
//               an fp64 reference (sampled entries for the large sizes) with
//               a tolerance derived from fp32 accumulation and the output's
//               rounding; the combinations cuBLASLt cannot do must come back
//               as FRUGAL_ERR_UNSUPPORTED.
//
// One line per group, PASS or FAIL; exit status 1 when any group fails.
// Random inputs are seeded from the clock and the seed is printed; --seed N
// repeats a run. --quick keeps the small shapes and skips the 8192^3 GEMM.
// usage: quant_cuda_check [--quick] [--seed N]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_check.hpp"
#include "formats/fp8.hpp"
#include "formats/half.hpp"
#include "frugal/frugal.h"

namespace {

namespace fq = frugal::quant;

using namespace frugal::device_check;

// A quant meta with its scale tensors (any of them may be absent).
struct Meta {
  frugal_quant_meta m{};
  View scale, scale_inv, amax;

  Meta() = default;
  Meta(const Meta&) = delete;
  Meta& operator=(const Meta&) = delete;

  const frugal_quant_meta* set(int32_t mode, int32_t block_rows, int32_t block_cols) {
    m = frugal_quant_meta{};
    m.struct_size = sizeof(m);
    m.scaling_mode = mode;
    m.block_rows = block_rows;
    m.block_cols = block_cols;
    return &m;
  }
};

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Input values: near-normal samples whose magnitude changes every 16 rows
// and 64 columns (so blocks get different scales), sprinkled with zeros,
// subnormals and large values; `specials` adds NaN, Inf, an all-zero row
// and an all-NaN 32-element block.
std::vector<float> make_values(Rng& rng, int64_t rows, int64_t cols, bool specials, bool fp16) {
  std::vector<float> v(static_cast<std::size_t>(rows * cols));
  const std::uint64_t seed = rng.next();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const std::uint64_t band = mix(seed ^ mix(static_cast<std::uint64_t>((r / 16) * 1000003 + c / 64)));
      const int exponent = static_cast<int>(band % 25) - 12;
      const std::uint64_t h = mix(seed + static_cast<std::uint64_t>(r * cols + c) * 2);
      const std::uint64_t h2 = mix(seed + static_cast<std::uint64_t>(r * cols + c) * 2 + 1);
      float x = static_cast<float>(std::ldexp(near_normal(h), exponent));
      const double pick = unit(h2);
      if (pick < 0.01) {
        x = 0.0f;
      } else if (pick < 0.015) {
        x = static_cast<float>(near_normal(h2) * 1e-40);  // fp32 subnormal
      } else if (pick < 0.02) {
        x = static_cast<float>((pick < 0.0175 ? -1.0 : 1.0) * (500.0 + unit(h) * 3e4));
      }
      if (fp16) x = std::clamp(x, -6e4f, 6e4f);
      v[static_cast<std::size_t>(r * cols + c)] = x;
    }
  }
  if (specials && rows > 12 && cols > 96) {
    for (int64_t c = 0; c < cols; ++c) v[static_cast<std::size_t>(5 * cols + c)] = 0.0f;
    v[static_cast<std::size_t>(7 * cols + 3)] = kNan;
    v[static_cast<std::size_t>(9 * cols + 40)] = kInf;
    v[static_cast<std::size_t>(9 * cols + 41)] = -kInf;
    for (int64_t c = 64; c < 96; ++c) v[static_cast<std::size_t>(11 * cols + c)] = -kNan;
    v[static_cast<std::size_t>(12 * cols + 1)] = std::numeric_limits<float>::denorm_min();
    v[static_cast<std::size_t>(12 * cols + 2)] = -0.0f;
  }
  return v;
}

// The values as dtype bytes, rows padded to `stride` elements with NaN
// patterns (which no kernel may read).
std::vector<std::uint8_t> encode_rows(const std::vector<float>& v, int64_t rows, int64_t cols, int64_t stride,
                                      int32_t dtype) {
  const std::size_t es = dtype_bytes(dtype);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(rows * stride) * es, 0xFF);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const float x = v[static_cast<std::size_t>(r * cols + c)];
      std::uint8_t* p = out.data() + static_cast<std::size_t>(r * stride + c) * es;
      if (dtype == FRUGAL_DTYPE_FLOAT32) {
        std::memcpy(p, &x, 4);
      } else {
        const std::uint16_t h = dtype == FRUGAL_DTYPE_FLOAT16 ? fq::fp32_to_fp16(x) : fq::fp32_to_bf16(x);
        std::memcpy(p, &h, 2);
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Quantizers
// ---------------------------------------------------------------------------

struct RecipeSpec {
  const char* label;
  const char* recipe;
  const char* axis;  // per_channel only
  int block_rows;    // block only (0: default)
  bool per_tensor;
};

const RecipeSpec kRecipes[] = {
    {"delayed", "delayed", nullptr, 0, true},
    {"current", "current", nullptr, 0, true},
    {"per_channel/rows", "per_channel", "rows", 0, false},
    {"per_channel/cols", "per_channel", "cols", 0, false},
    {"block/1x128", "block", nullptr, 1, false},
    {"block/128x128", "block", nullptr, 128, false},
    {"mx", "mx", nullptr, 0, false},
};

class Quantizer {
 public:
  Quantizer(frugal_context* ctx, const RecipeSpec& spec, const char* format, bool saturate) {
    frugal_options* o = nullptr;
    expect_ok(frugal_options_create(&o), "options");
    std::unique_ptr<frugal_options, void (*)(frugal_options*)> guard(o, frugal_options_destroy);
    expect_ok(frugal_options_set_string(o, "format", format), "format");
    expect_ok(frugal_options_set_string(o, "recipe", spec.recipe), "recipe");
    expect_ok(frugal_options_set_bool(o, "saturate", saturate ? 1 : 0), "saturate");
    if (spec.axis != nullptr) expect_ok(frugal_options_set_string(o, "axis", spec.axis), "axis");
    if (spec.block_rows != 0) {
      expect_ok(frugal_options_set_int(o, "block_rows", spec.block_rows), "block_rows");
      expect_ok(frugal_options_set_int(o, "block_cols", 128), "block_cols");
    }
    if (std::strcmp(spec.recipe, "delayed") == 0) expect_ok(frugal_options_set_int(o, "history", 4), "history");
    expect_ok(frugal_quantizer_create(ctx, "quant_fp8", o, &q_), "frugal_quantizer_create");
    layout_.struct_size = sizeof(layout_);
    expect_ok(frugal_quantizer_layout(q_, &layout_), "frugal_quantizer_layout");
  }
  ~Quantizer() { frugal_quantizer_destroy(q_); }
  Quantizer(const Quantizer&) = delete;
  Quantizer& operator=(const Quantizer&) = delete;

  frugal_quantizer* get() const { return q_; }
  const frugal_quant_layout& layout() const { return layout_; }
  std::pair<int64_t, int64_t> grid(int64_t rows, int64_t cols) const {
    int64_t shape[2] = {0, 0};
    expect_ok(frugal_quantizer_scale_shape(q_, rows, cols, shape), "frugal_quantizer_scale_shape");
    return {shape[0], shape[1]};
  }
  std::vector<std::uint8_t> state() const {
    std::size_t size = 0;
    expect_ok(frugal_quantizer_export_state(q_, nullptr, 0, &size), "export_state size");
    std::vector<std::uint8_t> blob(size);
    expect_ok(frugal_quantizer_export_state(q_, blob.data(), blob.size(), &size), "export_state");
    return blob;
  }

 private:
  frugal_quantizer* q_ = nullptr;
  frugal_quant_layout layout_{};
};

// ---------------------------------------------------------------------------
// Quantize / dequantize cases
// ---------------------------------------------------------------------------

enum class Mode { plain, fake, fake_in_place, transposed, transposed_fake };

const char* mode_label(Mode m) {
  switch (m) {
    case Mode::plain: return "plain";
    case Mode::fake: return "fake";
    case Mode::fake_in_place: return "fake in place";
    case Mode::transposed: return "output_t";
    case Mode::transposed_fake: break;
  }
  return "output_t+fake";
}

struct Shape {
  int64_t rows, cols, pad;
  bool specials;
  bool big;  // run in plain mode only
};

struct Context {
  frugal_context* ctx = nullptr;
  int device = 0;
  cudaStream_t stream = nullptr;
  Rng rng{0};
};

// One quantize case on both sides; "" when every byte agrees.
std::string quantize_case(Context& cx, const RecipeSpec& spec, const char* format, int32_t dtype, bool saturate,
                          Mode mode, const Shape& shape) {
  const Quantizer qc(cx.ctx, spec, format, saturate);
  const Quantizer qg(cx.ctx, spec, format, saturate);
  const frugal_quant_layout& L = qc.layout();
  const int64_t rows = shape.rows;
  const int64_t cols = shape.cols;
  const int64_t stride = cols + shape.pad;
  const int64_t stride_t = rows + (shape.pad != 0 ? 16 : 0);
  const std::size_t es = dtype_bytes(dtype);
  const bool fp16 = dtype == FRUGAL_DTYPE_FLOAT16;
  const bool mx = L.scaling_mode == FRUGAL_SCALING_MX;
  const bool transposed = mode == Mode::transposed || mode == Mode::transposed_fake;
  const auto [g0, g1] = qc.grid(rows, cols);
  const std::size_t grid = static_cast<std::size_t>(g0 * g1);
  const std::size_t scale_es = mx ? 1 : 4;

  Twin input(encode_rows(make_values(cx.rng, rows, cols, shape.specials, fp16), rows, cols, stride, dtype));
  Twin codes(static_cast<std::size_t>(rows * stride), 0xA5);
  Twin codes_t(transposed ? static_cast<std::size_t>(cols * stride_t) : 0, 0xA5);
  Twin fake_out(mode == Mode::fake || mode == Mode::transposed_fake ? static_cast<std::size_t>(rows * stride) * es : 0,
                0xA5);
  Twin scale_inv(grid * scale_es, 0xA5), scale(mx ? 0 : grid * 4, 0xA5), amax(4, 0xA5);
  Twin scale_inv_t(transposed ? 4 : 0, 0xA5), scale_t(transposed ? 4 : 0, 0xA5), amax_t(transposed ? 4 : 0, 0xA5);

  const auto run = [&](bool gpu) -> std::string {
    const frugal_device dev = gpu ? frugal_device{FRUGAL_DEVICE_CUDA, cx.device} : frugal_device{FRUGAL_DEVICE_CPU, 0};
    View in, out, out_t, fk;
    Meta meta, meta_t;
    frugal_quantize_args a{};
    a.struct_size = sizeof(a);
    a.input = in.set(input.side(gpu), dtype, dev, rows, cols, stride);
    frugal_tensor* o = out.set(codes.side(gpu), L.dtype, dev, rows, cols, stride);
    const frugal_quant_meta* qm = meta.set(L.scaling_mode, L.block_rows, L.block_cols);
    meta.m.scale_inv = meta.scale_inv.set(scale_inv.side(gpu), L.scale_dtype, dev, g0, g1, g1);
    if (!mx) meta.m.scale = meta.scale.set(scale.side(gpu), FRUGAL_DTYPE_FLOAT32, dev, g0, g1, g1);
    meta.m.amax = meta.amax.set(amax.side(gpu), FRUGAL_DTYPE_FLOAT32, dev, 1, 1, 1);
    o->quant = qm;
    a.output = o;
    if (transposed) {
      frugal_tensor* ot = out_t.set(codes_t.side(gpu), L.dtype, dev, cols, rows, stride_t);
      const frugal_quant_meta* qt = meta_t.set(L.scaling_mode, L.block_rows, L.block_cols);
      meta_t.m.scale_inv = meta_t.scale_inv.set(scale_inv_t.side(gpu), FRUGAL_DTYPE_FLOAT32, dev, 1, 1, 1);
      meta_t.m.scale = meta_t.scale.set(scale_t.side(gpu), FRUGAL_DTYPE_FLOAT32, dev, 1, 1, 1);
      meta_t.m.amax = meta_t.amax.set(amax_t.side(gpu), FRUGAL_DTYPE_FLOAT32, dev, 1, 1, 1);
      ot->quant = qt;
      a.output_t = ot;
    }
    if (mode == Mode::fake_in_place) a.fake = a.input;
    if (mode == Mode::fake || mode == Mode::transposed_fake) {
      a.fake = fk.set(fake_out.side(gpu), dtype, dev, rows, cols, stride);
    }
    a.stream = gpu ? static_cast<void*>(cx.stream) : nullptr;
    const Outcome r = outcome(frugal_quantizer_quantize(gpu ? qg.get() : qc.get(), &a));
    if (gpu) cuda_ok(cudaStreamSynchronize(cx.stream), "cudaStreamSynchronize");
    return r.code == 0 ? std::string() : std::string(gpu ? "cuda" : "cpu") + " quantize: " + r.message;
  };

  const auto compare_all = [&](const char* round) -> std::string {
    const std::pair<const Twin*, const char*> outputs[] = {{&codes, "codes"},
                                                           {&codes_t, "output_t codes"},
                                                           {&fake_out, "fake"},
                                                           {&input, "input (fake in place)"},
                                                           {&scale_inv, "scale_inv"},
                                                           {&scale, "scale"},
                                                           {&amax, "amax"},
                                                           {&scale_inv_t, "output_t scale_inv"},
                                                           {&scale_t, "output_t scale"},
                                                           {&amax_t, "output_t amax"}};
    for (const auto& [twin, what] : outputs) {
      std::string why = compare(*twin, what);
      if (!why.empty()) return std::string(round) + ": " + why;
    }
    return {};
  };

  const int rounds = std::strcmp(spec.recipe, "delayed") == 0 ? 2 : 1;
  for (int round = 0; round < rounds; ++round) {
    if (round > 0) {
      // The delayed recipe's second call quantizes new data with the scale
      // the first call's amax gave.
      input.set(encode_rows(make_values(cx.rng, rows, cols, shape.specials, fp16), rows, cols, stride, dtype));
    }
    if (std::string e = run(false); !e.empty()) return e;
    if (std::string e = run(true); !e.empty()) return e;
    if (std::string e = compare_all(round == 0 ? "call 1" : "call 2"); !e.empty()) return e;
  }
  if (rounds > 1 && qc.state() != qg.state()) return "the exported delayed-scaling states differ";

  // Dequantize the (equal) codes on both sides into the input dtype.
  Twin deq(static_cast<std::size_t>(rows * stride) * es, 0xA5);
  for (const bool gpu : {false, true}) {
    const frugal_device dev = gpu ? frugal_device{FRUGAL_DEVICE_CUDA, cx.device} : frugal_device{FRUGAL_DEVICE_CPU, 0};
    View in, out;
    Meta meta;
    frugal_tensor* i = in.set(codes.side(gpu), L.dtype, dev, rows, cols, stride);
    i->quant = meta.set(L.scaling_mode, L.block_rows, L.block_cols);
    meta.m.scale_inv = meta.scale_inv.set(scale_inv.side(gpu), L.scale_dtype, dev, g0, g1, g1);
    const frugal_dequantize_args dq{sizeof(frugal_dequantize_args), i,
                                    out.set(deq.side(gpu), dtype, dev, rows, cols, stride),
                                    gpu ? static_cast<void*>(cx.stream) : nullptr};
    const Outcome r = outcome(frugal_quantizer_dequantize(gpu ? qg.get() : qc.get(), &dq));
    if (gpu) cuda_ok(cudaStreamSynchronize(cx.stream), "cudaStreamSynchronize");
    if (r.code != 0) return std::string(gpu ? "cuda" : "cpu") + " dequantize: " + r.message;
  }
  return compare(deq, "dequantized");
}

bool check_quantize(Context& cx, bool quick) {
  std::vector<Shape> shapes = {
      {1, 1, 0, false, false},     {3, 37, 0, false, false},  {64, 128, 0, false, false},
      {129, 257, 3, false, false}, {67, 300, 4, true, false}, {130, 96, 32, false, false},
  };
  if (!quick) {
    shapes.push_back({256, 1000, 24, false, false});
    shapes.push_back({1000, 4096, 0, false, true});
    shapes.push_back({2048, 2048, 0, false, true});
  }
  bool ok = true;
  for (const RecipeSpec& spec : kRecipes) {
    for (const char* format : {"e4m3", "e5m2"}) {
      for (const int32_t dtype :
           {int32_t{FRUGAL_DTYPE_FLOAT32}, int32_t{FRUGAL_DTYPE_BFLOAT16}, int32_t{FRUGAL_DTYPE_FLOAT16}}) {
        for (const bool saturate : {true, false}) {
          if (!saturate && !spec.per_tensor) continue;  // block scales never overflow: one mode is enough
          std::vector<Mode> modes = {Mode::plain, Mode::fake, Mode::fake_in_place};
          if (spec.per_tensor) {
            modes.push_back(Mode::transposed);
            modes.push_back(Mode::transposed_fake);
          }
          Group g;
          for (const Shape& shape : shapes) {
            for (const Mode mode : modes) {
              if (shape.big && mode != Mode::plain && mode != Mode::transposed) continue;
              ++g.cases;
              std::string why;
              try {
                why = quantize_case(cx, spec, format, dtype, saturate, mode, shape);
              } catch (const std::exception& e) {
                why = e.what();
              }
              if (!why.empty() && g.failed++ == 0) {
                g.first = std::to_string(shape.rows) + "x" + std::to_string(shape.cols) + "+" +
                          std::to_string(shape.pad) + " " + mode_label(mode) + ": " + why;
              }
            }
          }
          const std::string name = std::string("quantize+dequantize ") + spec.label + " " + format + " " +
                                   dtype_label(dtype) + (saturate ? "" : " nosat");
          ok = report(name, g) && ok;
        }
      }
    }
  }
  return ok;
}

// ---------------------------------------------------------------------------
// GEMM
// ---------------------------------------------------------------------------

// Codes of near-normal samples (times 16) in an fp8 format: finite, with a realistic spread.
std::vector<std::uint8_t> random_codes(Rng& rng, std::size_t n, int32_t dtype) {
  std::vector<std::uint8_t> out(n);
  const fq::Fp8Format f = dtype == FRUGAL_DTYPE_FLOAT8_E4M3FN ? fq::Fp8Format::e4m3fn : fq::Fp8Format::e5m2;
  const std::uint64_t seed = rng.next();
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = fq::fp32_to_fp8(static_cast<float>(near_normal(mix(seed + i)) * 16.0), f, fq::Saturation::finite);
  }
  return out;
}

double decode(std::uint8_t c, int32_t dtype) {
  return fq::fp8_to_fp32(c, dtype == FRUGAL_DTYPE_FLOAT8_E4M3FN ? fq::Fp8Format::e4m3fn : fq::Fp8Format::e5m2);
}

// Every code's value, for the reference's inner loop.
std::vector<double> decode_table(int32_t dtype) {
  std::vector<double> t(256);
  for (int c = 0; c < 256; ++c) t[static_cast<std::size_t>(c)] = decode(static_cast<std::uint8_t>(c), dtype);
  return t;
}

struct GemmSpec {
  int64_t m, n, k;
  int32_t a, b, d;
  bool fast;
};

// The fp8 D's unit roundoff and smallest subnormal.
double unit_roundoff(int32_t dtype) {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT32: return 0x1p-24;
    case FRUGAL_DTYPE_BFLOAT16: return 0x1p-8;
    case FRUGAL_DTYPE_FLOAT8_E4M3FN: return 0x1p-4;
    default: return 0x1p-3;  // E5M2
  }
}

std::string gemm_case(Context& cx, frugal_quantizer* q, const GemmSpec& s, int64_t samples) {
  const std::size_t ds = dtype_bytes(s.d);
  const bool fp8_d = s.d == FRUGAL_DTYPE_FLOAT8_E4M3FN || s.d == FRUGAL_DTYPE_FLOAT8_E5M2;
  const std::vector<std::uint8_t> a = random_codes(cx.rng, static_cast<std::size_t>(s.m * s.k), s.a);
  const std::vector<std::uint8_t> b = random_codes(cx.rng, static_cast<std::size_t>(s.n * s.k), s.b);
  const float sa = 0.125f;   // scale_inv of A and B: powers of two, so the
  const float sb = 0.0625f;  // reference's products stay exact
  const float alpha = 0.75f;
  // D ~ alpha sa sb 256 sqrt(k) N(0, 1): an fp8 D is scaled so 8 sigma fits.
  const double sigma = alpha * sa * sb * 256.0 * std::sqrt(static_cast<double>(s.k));
  const float d_scale = fp8_d ? static_cast<float>(std::exp2(std::floor(
                                    std::log2((s.d == FRUGAL_DTYPE_FLOAT8_E4M3FN ? 448.0 : 57344.0) / (8.0 * sigma)))))
                              : 1.0f;

  DeviceBuffer da(a.size()), db(b.size()), dd(static_cast<std::size_t>(s.m * s.n) * ds), dscal(4 * 4);
  da.upload(a.data());
  db.upload(b.data());
  const float scal[4] = {sa, sb, d_scale, 0.0f};
  dscal.upload(scal);
  float* dev_scal = static_cast<float*>(dscal.get());

  const frugal_device dev{FRUGAL_DEVICE_CUDA, cx.device};
  View va, vb, vd, vsa, vsb, vds, vamax;
  Meta ma, mb, md;
  frugal_tensor* ta = va.set(da.get(), s.a, dev, s.m, s.k, s.k);
  ta->quant = ma.set(FRUGAL_SCALING_CURRENT, 0, 0);
  ma.m.scale_inv = vsa.set(dev_scal + 0, FRUGAL_DTYPE_FLOAT32, dev, 1, 1, 1);
  frugal_tensor* tb = vb.set(db.get(), s.b, dev, s.n, s.k, s.k);
  tb->quant = mb.set(FRUGAL_SCALING_CURRENT, 0, 0);
  mb.m.scale_inv = vsb.set(dev_scal + 1, FRUGAL_DTYPE_FLOAT32, dev, 1, 1, 1);
  frugal_tensor* td = vd.set(dd.get(), s.d, dev, s.m, s.n, s.n);
  if (fp8_d) {
    td->quant = md.set(FRUGAL_SCALING_CURRENT, 0, 0);
    md.m.scale = vds.set(dev_scal + 2, FRUGAL_DTYPE_FLOAT32, dev, 1, 1, 1);
    md.m.amax = vamax.set(dev_scal + 3, FRUGAL_DTYPE_FLOAT32, dev, 1, 1, 1);
  }
  frugal_quant_gemm_args g{};
  g.struct_size = sizeof(g);
  g.a = ta;
  g.b = tb;
  g.d = td;
  g.stream = cx.stream;
  g.alpha = alpha;
  g.flags = s.fast ? FRUGAL_GEMM_FAST_ACCUM : 0u;
  const Outcome r = outcome(frugal_quantizer_gemm(q, &g));
  if (r.code != 0) return std::string("gemm: ") + frugal_error_code_name(r.code) + ": " + r.message;
  cuda_ok(cudaStreamSynchronize(cx.stream), "cudaStreamSynchronize");
  const std::vector<std::uint8_t> out = dd.download();
  float back_scal[4];
  cuda_ok(cudaMemcpy(back_scal, dscal.get(), sizeof back_scal, cudaMemcpyDeviceToHost), "cudaMemcpy");

  // Tolerance per entry: S = |alpha| sa sb sum_k |a b| bounds every partial
  // sum. fp32 accumulation in any order errs by at most k u32 S; Hopper's
  // FP8 tensor cores keep partial sums to about 14 bits between promotions
  // to fp32 (2^-11 S covers it), and fast accumulation promotes only at the
  // end (2^-7 S, an empirical bound for random signs). The output's rounding
  // adds u_out |D| (plus half its smallest step for an fp8 D).
  const double c_acc = (s.fast ? 0x1p-7 : 0x1p-11) + static_cast<double>(s.k) * 0x1p-24;
  const double u_out = unit_roundoff(s.d);
  const double tiny = fp8_d ? (s.d == FRUGAL_DTYPE_FLOAT8_E4M3FN ? 0x1p-10 : 0x1p-17) / d_scale : 1e-30;
  const std::vector<double> lut_a = decode_table(s.a);
  const std::vector<double> lut_b = decode_table(s.b);
  const bool full = samples <= 0;
  const int64_t count = full ? s.m * s.n : samples;
  Rng pick(cx.rng.next());
  double worst = 0.0;  // largest error / tolerance
  double max_ref = 0.0;
  double max_tol = 0.0;
  std::string first_bad;
  for (int64_t t = 0; t < count; ++t) {
    const int64_t i = full ? t / s.n : static_cast<int64_t>(pick.next() % static_cast<std::uint64_t>(s.m));
    const int64_t j = full ? t % s.n : static_cast<int64_t>(pick.next() % static_cast<std::uint64_t>(s.n));
    double sum = 0.0;
    double abs_sum = 0.0;
    const std::uint8_t* ra = a.data() + i * s.k;
    const std::uint8_t* rb = b.data() + j * s.k;
    for (int64_t kk = 0; kk < s.k; ++kk) {
      const double p = lut_a[ra[kk]] * lut_b[rb[kk]];
      sum += p;
      abs_sum += std::fabs(p);
    }
    const double scale = static_cast<double>(alpha) * sa * sb;
    const double ref = sum * scale;
    const double tol = abs_sum * std::fabs(scale) * c_acc + std::fabs(ref) * u_out + tiny;
    max_ref = std::max(max_ref, std::fabs(ref));
    max_tol = std::max(max_tol, tol);
    const std::uint8_t* p = out.data() + static_cast<std::size_t>(i * s.n + j) * ds;
    double got = 0.0;
    if (s.d == FRUGAL_DTYPE_FLOAT32) {
      float f;
      std::memcpy(&f, p, 4);
      got = f;
    } else if (s.d == FRUGAL_DTYPE_BFLOAT16) {
      std::uint16_t h;
      std::memcpy(&h, p, 2);
      got = fq::bf16_to_fp32(h);
    } else {
      got = decode(*p, s.d) / d_scale;
    }
    const double err = std::fabs(got - ref);
    if (!(err <= tol)) {
      if (first_bad.empty()) {
        char line[200];
        std::snprintf(line, sizeof line, "D[%lld,%lld] = %.9g, reference %.9g, tolerance %.3g",
                      static_cast<long long>(i), static_cast<long long>(j), got, ref, tol);
        first_bad = line;
      }
      worst = std::max(worst, std::isfinite(err) ? err / tol : 1e30);
    }
  }
  if (!first_bad.empty()) return first_bad + " (worst " + std::to_string(worst) + "x tolerance)";
  if (fp8_d) {
    // cuBLASLt's amax of D before the output scale.
    const double amax = back_scal[3];
    if (full ? std::fabs(amax - max_ref) > max_tol : amax < max_ref - max_tol) {
      return "amax(D) " + std::to_string(amax) + ", reference " + std::to_string(max_ref);
    }
  }
  return {};
}

bool check_gemm(Context& cx, bool quick) {
  bool ok = true;
  // Any quantizer serves the GEMM: the operands carry their own scales.
  const Quantizer q(cx.ctx, kRecipes[1], "e4m3", true);
  const int32_t E4 = FRUGAL_DTYPE_FLOAT8_E4M3FN;
  const int32_t E5 = FRUGAL_DTYPE_FLOAT8_E5M2;
  struct Size {
    int64_t m, n, k, samples;  // samples 0: every entry
  };
  std::vector<Size> sizes = {{16, 16, 16, 0}, {64, 48, 32, 0}, {100, 80, 256, 0}, {256, 512, 1024, 0}};
  if (!quick) {
    sizes.push_back({1000, 1008, 4096, 20000});
    sizes.push_back({8192, 8192, 8192, 4096});
  }
  const std::pair<int32_t, int32_t> operands[] = {{E4, E4}, {E4, E5}, {E5, E4}};
  for (const auto& [ta, tb] : operands) {
    for (const int32_t td : {int32_t{FRUGAL_DTYPE_FLOAT32}, int32_t{FRUGAL_DTYPE_BFLOAT16}, E4}) {
      for (const bool fast : {false, true}) {
        Group g;
        for (const Size& z : sizes) {
          // The 8192^3 product runs once: e4m3 x e4m3 -> bf16, both accumulation modes.
          if (z.m == 8192 && !(ta == E4 && tb == E4 && td == FRUGAL_DTYPE_BFLOAT16)) continue;
          ++g.cases;
          std::string why;
          try {
            why = gemm_case(cx, q.get(), GemmSpec{z.m, z.n, z.k, ta, tb, td, fast}, z.samples);
          } catch (const std::exception& e) {
            why = e.what();
          }
          if (!why.empty() && g.failed++ == 0) {
            g.first = std::to_string(z.m) + "x" + std::to_string(z.n) + "x" + std::to_string(z.k) + ": " + why;
          }
        }
        ok = report(std::string("gemm ") + dtype_label(ta) + " x " + dtype_label(tb) + " -> " + dtype_label(td) +
                        (fast ? " fast_accum" : ""),
                    g) &&
             ok;
      }
    }
  }

  // What cuBLASLt cannot do is refused, not computed wrongly.
  Group refused;
  const auto expect_unsupported = [&](const GemmSpec& s, const char* what) {
    ++refused.cases;
    std::string why;
    try {
      why = gemm_case(cx, q.get(), s, 0);
    } catch (const std::exception& e) {
      why = e.what();
    }
    const std::string refusal = std::string("gemm: ") + frugal_error_code_name(FRUGAL_ERR_UNSUPPORTED) + ":";
    const bool said_unsupported = why.rfind(refusal, 0) == 0;
    if (why.empty() || !said_unsupported) {
      if (refused.failed++ == 0) refused.first = std::string(what) + ": " + (why.empty() ? "computed" : why);
    }
  };
  expect_unsupported(GemmSpec{32, 32, 32, E5, E5, FRUGAL_DTYPE_BFLOAT16, false}, "e5m2 x e5m2");
  expect_unsupported(GemmSpec{32, 32, 24, E4, E4, FRUGAL_DTYPE_BFLOAT16, false}, "k = 24");
  ok = report("gemm refuses e5m2 x e5m2 and k % 16 != 0", refused) && ok;
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  return run_check("quant_cuda_check", argc, argv, [](const Session& s) {
    Context cx{s.ctx, s.device, s.stream, Rng(s.seed)};
    bool ok = true;
    const auto t0 = std::chrono::steady_clock::now();
    ok = check_quantize(cx, s.quick) && ok;
    const auto t1 = std::chrono::steady_clock::now();
    ok = check_gemm(cx, s.quick) && ok;
    const auto t2 = std::chrono::steady_clock::now();
    std::printf("quant_cuda_check: quantize %.1f s, gemm %.1f s\n", std::chrono::duration<double>(t1 - t0).count(),
                std::chrono::duration<double>(t2 - t1).count());
    return ok;
  });
}
