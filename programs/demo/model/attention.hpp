// Causal multi-head self-attention over packed rows: token i of a row
// attends to token j <= i only when both carry the same segment id, so
// sequences packed into one row never see each other. A padding token
// (segment -1) attends to itself only, which keeps its softmax finite
// (its loss is ignored anyway).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "linear.hpp"
#include "parameters.hpp"

namespace frugal_demo {

template <class T>
struct AttentionParams {
  ParamView<T> qkv_weight;  // [3 d_model, d_model]: q, k, v stacked
  ParamView<T> qkv_bias;    // [3 d_model]
  ParamView<T> out_weight;  // [d_model, d_model]
  ParamView<T> out_bias;    // [d_model]
};

template <class T>
class Attention {
 public:
  Attention(std::size_t d_model, std::size_t heads, const AttentionParams<T>& params);

  // x: [rows * seq, d_model]; segments: [rows * seq].
  std::vector<T> forward(std::span<const T> x, std::size_t rows, std::size_t seq,
                         std::span<const std::int32_t> segments);
  std::vector<T> backward(std::span<const T> d_out);

  Linear<T>& qkv() { return qkv_; }
  Linear<T>& out() { return out_; }

 private:
  std::size_t d_model_;
  std::size_t heads_;
  std::size_t head_dim_;
  Linear<T> qkv_;
  Linear<T> out_;
  std::size_t rows_ = 0;
  std::size_t seq_ = 0;
  std::vector<std::int32_t> segments_;
  std::vector<T> qkv_act_;  // [n, 3 d_model]
  std::vector<T> probs_;    // [rows, heads, seq, seq]; only allowed entries valid
};

}  // namespace frugal_demo
