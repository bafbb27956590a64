// A tiny causal transformer language model: token + learned position
// embeddings, pre-norm blocks (RMSNorm -> attention -> residual, RMSNorm ->
// dense or MoE FFN -> residual), final RMSNorm, untied output projection,
// cross-entropy. Every parameter lives in one contiguous buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "attention.hpp"
#include "batch.hpp"
#include "cross_entropy.hpp"
#include "embedding.hpp"
#include "ffn_dense.hpp"
#include "ffn_moe.hpp"
#include "linear.hpp"
#include "parameters.hpp"
#include "rms_norm.hpp"

namespace frugal_demo {

struct ModelConfig {
  std::size_t vocab = 256;
  std::size_t d_model = 64;
  std::size_t heads = 4;
  std::size_t layers = 2;
  std::size_t max_seq = 128;  // rows of the position table
  std::size_t ffn_hidden = 128;
  bool moe = false;
  MoeOptions moe_options;  // used when moe
  double norm_eps = 1e-5;
  double init_std = 0.02;
  std::uint64_t seed = 1;
};

struct StepStats {
  double loss = 0;                                     // mean cross-entropy over counted labels
  double aux_loss = 0;                                 // sum of the MoE layers' balancing losses
  std::size_t tokens = 0;                              // labels counted in the loss
  std::vector<std::vector<std::size_t>> expert_loads;  // [MoE layer][expert]
  std::size_t dropped = 0;                             // dropped (token, slot) assignments, all layers
};

template <class T>
class Model {
 public:
  explicit Model(const ModelConfig& config);
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model();

  // Forward only (caches what backward needs). The objective whose
  // gradient backward() computes is loss + aux_loss.
  const StepStats& forward(const Batch& batch);
  // Gradients of the last forward, accumulated into gradients().
  void backward();
  // zero_grad (unless accumulate), forward, backward; returns the loss.
  T forward_backward(const Batch& batch, bool accumulate = false);

  [[nodiscard]] const StepStats& stats() const { return stats_; }
  void zero_grad() { params_.zero_grad(); }
  std::span<T> parameters() { return params_.values(); }
  std::span<T> gradients() { return params_.grads(); }
  ParameterSet<T>& parameter_set() { return params_; }
  [[nodiscard]] const ModelConfig& config() const { return config_; }

  // For every MoE layer (the request carries the layer index).
  void set_selector(const ExpertSelector<T>& selector);
  // Every Linear with its parameter-style name, e.g. "layers.0.attn.qkv",
  // "layers.1.moe.expert.2.up", "head" (to attach fake-quant hooks).
  void for_each_linear(const std::function<void(const std::string&, Linear<T>&)>& fn);

 private:
  struct Layer;
  ModelConfig config_;
  ParameterSet<T> params_;
  std::unique_ptr<Embedding<T>> tok_emb_;
  std::unique_ptr<Embedding<T>> pos_emb_;
  std::vector<std::unique_ptr<Layer>> layers_;
  std::unique_ptr<RmsNorm<T>> final_norm_;
  std::unique_ptr<Linear<T>> head_;
  CrossEntropy<T> loss_;
  StepStats stats_;
  bool have_forward_ = false;
};

}  // namespace frugal_demo
