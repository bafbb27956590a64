#include "attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "tensor_math.hpp"

namespace frugal_demo {
namespace {

// Whether query i may attend to key j (both positions within one row).
inline bool allowed(const std::int32_t* seg, std::size_t i, std::size_t j) {
  if (seg[i] < 0) return i == j;
  return j <= i && seg[j] == seg[i];
}

}  // namespace

template <class T>
Attention<T>::Attention(std::size_t d_model, std::size_t heads, const AttentionParams<T>& params)
    : d_model_(d_model),
      heads_(heads),
      head_dim_(heads == 0 ? 0 : d_model / heads),
      qkv_(d_model, 3 * d_model, params.qkv_weight, params.qkv_bias),
      out_(d_model, d_model, params.out_weight, params.out_bias) {
  if (heads == 0 || d_model % heads != 0) throw std::invalid_argument("Attention: d_model must divide by heads");
}

template <class T>
std::vector<T> Attention<T>::forward(std::span<const T> x, std::size_t rows, std::size_t seq,
                                     std::span<const std::int32_t> segments) {
  const std::size_t n = rows * seq;
  if (x.size() != n * d_model_ || segments.size() != n) throw std::invalid_argument("Attention: size mismatch");
  rows_ = rows;
  seq_ = seq;
  segments_.assign(segments.begin(), segments.end());
  qkv_act_ = qkv_.forward(x);
  // Only allowed (i, j) entries are ever written or read: no need to
  // clear the rest (that memset was a tenth of a training step).
  probs_.resize(rows * heads_ * seq * seq);
  std::vector<T> ctx(n * d_model_, T(0));
  const T scale = T(1) / std::sqrt(static_cast<T>(head_dim_));
  const std::size_t stride = 3 * d_model_;
  // One (row, head) pair per work item: its outputs are its own slice of
  // ctx and probs, so threads never share an output element.
  parallel_for(rows * heads_, seq * seq * head_dim_, [&](std::size_t begin, std::size_t end) {
    for (std::size_t item = begin; item < end; ++item) {
      const std::size_t b = item / heads_;
      const std::size_t h = item % heads_;
      const std::int32_t* seg = segments_.data() + b * seq;
      const T* base = qkv_act_.data() + b * seq * stride;
      for (std::size_t i = 0; i < seq; ++i) {
        const T* q = base + i * stride + h * head_dim_;
        T* p = probs_.data() + (item * seq + i) * seq;
        T mx = -std::numeric_limits<T>::infinity();
        for (std::size_t j = 0; j <= i; ++j) {
          if (!allowed(seg, i, j)) continue;
          const T* k = base + j * stride + d_model_ + h * head_dim_;
          T s = 0;
          for (std::size_t d = 0; d < head_dim_; ++d) s += q[d] * k[d];
          p[j] = s * scale;
          mx = std::max(mx, p[j]);
        }
        T sum = 0;
        for (std::size_t j = 0; j <= i; ++j) {
          if (!allowed(seg, i, j)) continue;
          p[j] = std::exp(p[j] - mx);
          sum += p[j];
        }
        T* o = ctx.data() + (b * seq + i) * d_model_ + h * head_dim_;
        for (std::size_t j = 0; j <= i; ++j) {
          if (!allowed(seg, i, j)) continue;
          p[j] /= sum;
          const T* v = base + j * stride + 2 * d_model_ + h * head_dim_;
          for (std::size_t d = 0; d < head_dim_; ++d) o[d] += p[j] * v[d];
        }
      }
    }
  });
  return out_.forward(ctx);
}

template <class T>
std::vector<T> Attention<T>::backward(std::span<const T> d_out) {
  const std::size_t seq = seq_;
  const std::size_t stride = 3 * d_model_;
  std::vector<T> d_ctx = out_.backward(d_out);
  std::vector<T> d_qkv(rows_ * seq * stride, T(0));
  const T scale = T(1) / std::sqrt(static_cast<T>(head_dim_));
  parallel_for(rows_ * heads_, 2 * seq * seq * head_dim_, [&](std::size_t begin, std::size_t end) {
    std::vector<T> dp(seq);
    for (std::size_t item = begin; item < end; ++item) {
      const std::size_t b = item / heads_;
      const std::size_t h = item % heads_;
      const std::int32_t* seg = segments_.data() + b * seq;
      const T* base = qkv_act_.data() + b * seq * stride;
      T* dbase = d_qkv.data() + b * seq * stride;
      for (std::size_t i = 0; i < seq; ++i) {
        const T* p = probs_.data() + (item * seq + i) * seq;
        const T* dout = d_ctx.data() + (b * seq + i) * d_model_ + h * head_dim_;
        // dP_ij = dO_i . v_j and dv_j += P_ij dO_i.
        T dot = 0;
        for (std::size_t j = 0; j <= i; ++j) {
          if (!allowed(seg, i, j)) continue;
          const T* v = base + j * stride + 2 * d_model_ + h * head_dim_;
          T* dv = dbase + j * stride + 2 * d_model_ + h * head_dim_;
          T s = 0;
          for (std::size_t d = 0; d < head_dim_; ++d) {
            s += dout[d] * v[d];
            dv[d] += p[j] * dout[d];
          }
          dp[j] = s;
          dot += p[j] * s;
        }
        // Softmax backward: dS_ij = P_ij (dP_ij - sum_k P_ik dP_ik).
        const T* q = base + i * stride + h * head_dim_;
        T* dq = dbase + i * stride + h * head_dim_;
        for (std::size_t j = 0; j <= i; ++j) {
          if (!allowed(seg, i, j)) continue;
          const T ds = p[j] * (dp[j] - dot) * scale;
          const T* k = base + j * stride + d_model_ + h * head_dim_;
          T* dk = dbase + j * stride + d_model_ + h * head_dim_;
          for (std::size_t d = 0; d < head_dim_; ++d) {
            dq[d] += ds * k[d];
            dk[d] += ds * q[d];
          }
        }
      }
    }
  });
  return qkv_.backward(d_qkv);
}

template class Attention<float>;
template class Attention<double>;

}  // namespace frugal_demo
