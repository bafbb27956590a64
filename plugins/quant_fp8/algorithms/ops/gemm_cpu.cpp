// gemm_cpu: D = alpha * (A * scale_inv_a) * (B * scale_inv_b)^T over FP8
// codes, fp32 accumulation in ascending k (cpu_ops.hpp). D is cut into
// 64 x 64 tiles, one thread per run of tiles; each tile walks k in 256-wide
// slices, decoding the slice of A and of B (transposed, so the kernel reads
// both contiguously) into fp32 panels that stay in L2, and a 4 x 4 register
// kernel sums into the tile. Every element's sum runs over k in order, so
// neither the tiling nor the threads change a bit of the result.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/fp8.hpp"
#include "formats/half.hpp"
#include "frugal/tensor.h"
#include "ops/block_grid.hpp"
#include "ops/chunks.hpp"
#include "ops/cpu_ops.hpp"
#include "ops/element_types.hpp"

namespace frugal::quant::ops {
namespace {

using detail::row_of;

constexpr std::int64_t kTileM = 64;
constexpr std::int64_t kTileN = 64;
constexpr std::int64_t kSliceK = 256;
constexpr std::int64_t kMicro = 4;  // the register kernel's rows and columns

using DecodeTable = std::array<float, 256>;

Fp8Format fp8_format_of(std::int32_t dtype, const char* role) {
  if (dtype == FRUGAL_DTYPE_FLOAT8_E4M3FN) return Fp8Format::e4m3fn;
  if (dtype == FRUGAL_DTYPE_FLOAT8_E5M2) return Fp8Format::e5m2;
  throw std::invalid_argument(std::string("quant_fp8 gemm_cpu: ") + role + " is not E4M3FN or E5M2");
}

DecodeTable decode_table(Fp8Format f) {
  DecodeTable t{};
  for (unsigned c = 0; c < 256; ++c) t[c] = fp8_to_fp32(static_cast<std::uint8_t>(c), f);
  return t;
}

// One thread's scratch: the tile's accumulators and the decoded panels,
// padded to whole register blocks with zeros (padding only ever feeds
// accumulators that are not written out).
struct Panels {
  std::vector<float> acc = std::vector<float>(kTileM * kTileN);
  std::vector<float> a = std::vector<float>(kTileM * kSliceK);  // [row][k]
  std::vector<float> b = std::vector<float>(kSliceK * kTileN);  // [k][col]
};

// acc[4 x 4 at (i, j)] += a[i.., 0..kn) * b[0..kn), j..]: sixteen named
// accumulators, so they live in registers even without optimisation.
void kernel_4x4(Panels& p, std::int64_t i, std::int64_t j, std::int64_t kn) {
  float* c = p.acc.data() + i * kTileN + j;
  float c00 = c[0], c01 = c[1], c02 = c[2], c03 = c[3];
  float c10 = c[kTileN], c11 = c[kTileN + 1], c12 = c[kTileN + 2], c13 = c[kTileN + 3];
  float c20 = c[2 * kTileN], c21 = c[2 * kTileN + 1], c22 = c[2 * kTileN + 2], c23 = c[2 * kTileN + 3];
  float c30 = c[3 * kTileN], c31 = c[3 * kTileN + 1], c32 = c[3 * kTileN + 2], c33 = c[3 * kTileN + 3];
  const float* a0 = p.a.data() + i * kSliceK;
  const float* a1 = a0 + kSliceK;
  const float* a2 = a1 + kSliceK;
  const float* a3 = a2 + kSliceK;
  const float* bk = p.b.data() + j;
  for (std::int64_t k = 0; k < kn; ++k, bk += kTileN) {
    const float b0 = bk[0], b1 = bk[1], b2 = bk[2], b3 = bk[3];
    const float x0 = a0[k], x1 = a1[k], x2 = a2[k], x3 = a3[k];
    c00 += x0 * b0, c01 += x0 * b1, c02 += x0 * b2, c03 += x0 * b3;
    c10 += x1 * b0, c11 += x1 * b1, c12 += x1 * b2, c13 += x1 * b3;
    c20 += x2 * b0, c21 += x2 * b1, c22 += x2 * b2, c23 += x2 * b3;
    c30 += x3 * b0, c31 += x3 * b1, c32 += x3 * b2, c33 += x3 * b3;
  }
  c[0] = c00, c[1] = c01, c[2] = c02, c[3] = c03;
  c[kTileN] = c10, c[kTileN + 1] = c11, c[kTileN + 2] = c12, c[kTileN + 3] = c13;
  c[2 * kTileN] = c20, c[2 * kTileN + 1] = c21, c[2 * kTileN + 2] = c22, c[2 * kTileN + 3] = c23;
  c[3 * kTileN] = c30, c[3 * kTileN + 1] = c31, c[3 * kTileN + 2] = c32, c[3 * kTileN + 3] = c33;
}

struct Gemm {
  const GemmOp& op;
  DecodeTable da, db;
  float factor;
  Fp8Format d_format = Fp8Format::e4m3fn;  // FP8 D only
  float d_scale = 1.0f;

  [[nodiscard]] std::int64_t m() const { return op.a.rows(); }
  [[nodiscard]] std::int64_t n() const { return op.b.rows(); }
  [[nodiscard]] std::int64_t k() const { return op.a.cols(); }

  // The tile of D at (i0, j0); returns the magnitude key of its largest |d|.
  std::int32_t tile(Panels& p, std::int64_t i0, std::int64_t j0) const {
    const std::int64_t mi = std::min(kTileM, m() - i0), nj = std::min(kTileN, n() - j0);
    std::fill(p.acc.begin(), p.acc.end(), 0.0f);
    std::fill(p.a.begin(), p.a.end(), 0.0f);
    std::fill(p.b.begin(), p.b.end(), 0.0f);
    for (std::int64_t k0 = 0; k0 < k(); k0 += kSliceK) {
      const std::int64_t kn = std::min(kSliceK, k() - k0);
      for (std::int64_t i = 0; i < mi; ++i) {
        const std::uint8_t* src = row_of<const std::uint8_t>(op.a, i0 + i) + k0;
        float* dst = p.a.data() + i * kSliceK;
        for (std::int64_t kk = 0; kk < kn; ++kk) dst[kk] = da[src[kk]];
      }
      for (std::int64_t j = 0; j < nj; ++j) {
        const std::uint8_t* src = row_of<const std::uint8_t>(op.b, j0 + j) + k0;
        for (std::int64_t kk = 0; kk < kn; ++kk) p.b[kk * kTileN + j] = db[src[kk]];
      }
      for (std::int64_t i = 0; i < mi; i += kMicro) {
        for (std::int64_t j = 0; j < nj; j += kMicro) kernel_4x4(p, i, j, kn);
      }
    }
    std::int32_t key = 0;
    for (std::int64_t i = 0; i < mi; ++i) {
      for (std::int64_t j = 0; j < nj; ++j) {
        const float d = p.acc[i * kTileN + j] * factor;
        const std::int32_t dk = detail::Fp32Type::key(d);
        key = key > dk ? key : dk;
        store(i0 + i, j0 + j, d);
      }
    }
    return key;
  }

  void store(std::int64_t i, std::int64_t j, float d) const {
    switch (op.d.dtype) {
      case FRUGAL_DTYPE_FLOAT32: row_of<float>(op.d, i)[j] = d; return;
      case FRUGAL_DTYPE_BFLOAT16: row_of<std::uint16_t>(op.d, i)[j] = fp32_to_bf16(d); return;
      case FRUGAL_DTYPE_FLOAT16: row_of<std::uint16_t>(op.d, i)[j] = fp32_to_fp16(d); return;
      default: row_of<std::uint8_t>(op.d, i)[j] = fp32_to_fp8(d * d_scale, d_format, Saturation::finite);
    }
  }
};

}  // namespace

void gemm_cpu(const GemmOp& op) {
  if (op.b.cols() != op.a.cols() || op.d.rows() != op.a.rows() || op.d.cols() != op.b.rows())
    throw std::invalid_argument("quant_fp8 gemm_cpu: shapes do not match a [m, k], b [n, k], d [m, n]");
  Gemm g{op, decode_table(fp8_format_of(op.a.dtype, "a")), decode_table(fp8_format_of(op.b.dtype, "b")),
         (*op.scale_inv_a * *op.scale_inv_b) * op.alpha};
  const bool fp8_out = op.d.dtype == FRUGAL_DTYPE_FLOAT8_E4M3FN || op.d.dtype == FRUGAL_DTYPE_FLOAT8_E5M2;
  if (fp8_out) {
    if (op.d_scale == nullptr) throw std::invalid_argument("quant_fp8 gemm_cpu: an FP8 d needs d_scale");
    g.d_format = fp8_format_of(op.d.dtype, "d");
    g.d_scale = *op.d_scale;
  } else if (op.d.dtype != FRUGAL_DTYPE_FLOAT32 && op.d.dtype != FRUGAL_DTYPE_BFLOAT16 &&
             op.d.dtype != FRUGAL_DTYPE_FLOAT16) {
    throw std::invalid_argument("quant_fp8 gemm_cpu: d must be fp32, bf16, fp16 or FP8");
  }
  const std::int64_t tiles_m = (op.a.rows() + kTileM - 1) / kTileM;
  const std::int64_t tiles_n = (op.b.rows() + kTileN - 1) / kTileN;
  const auto tiles = static_cast<std::size_t>(tiles_m * tiles_n);
  const unsigned chunks = detail::chunk_count(tiles, static_cast<std::size_t>(kTileM * kTileN * g.k()), op.threads);
  std::vector<std::int32_t> keys(chunks, 0);
  detail::run_chunks(tiles, chunks, [&](unsigned c, std::size_t begin, std::size_t end) {
    Panels panels;
    for (std::size_t t = begin; t < end; ++t) {
      const auto ti = static_cast<std::int64_t>(t) / tiles_n, tj = static_cast<std::int64_t>(t) % tiles_n;
      const std::int32_t key = g.tile(panels, ti * kTileM, tj * kTileN);
      keys[c] = keys[c] > key ? keys[c] : key;
    }
  });
  if (op.d_amax != nullptr)
    *op.d_amax = detail::key_amax<detail::Fp32Type>(*std::max_element(keys.begin(), keys.end()));
}

}  // namespace frugal::quant::ops
