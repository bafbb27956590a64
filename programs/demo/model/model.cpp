#include "model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace frugal_demo {

template <class T>
struct Model<T>::Layer {
  std::unique_ptr<RmsNorm<T>> norm1;
  std::unique_ptr<Attention<T>> attn;
  std::unique_ptr<RmsNorm<T>> norm2;
  std::unique_ptr<FfnDense<T>> dense;
  std::unique_ptr<FfnMoe<T>> moe;
};

// How each parameter starts. Named, not anonymous: Model<T>'s constructor
// (a template with external linkage) captures a vector of them, which GCC
// flags when this file is compiled inside a unity batch.
namespace model_detail {

enum class Init { normal, residual_out, zero, one };

}  // namespace model_detail

using model_detail::Init;

template <class T>
Model<T>::Model(const ModelConfig& config) : config_(config) {
  const ModelConfig& c = config_;
  if (c.vocab == 0 || c.d_model == 0 || c.layers == 0 || c.max_seq == 0 || c.ffn_hidden == 0)
    throw std::invalid_argument("ModelConfig: sizes must be positive");
  if (c.heads == 0 || c.d_model % c.heads != 0) throw std::invalid_argument("ModelConfig: d_model % heads != 0");

  // Phase 1: declare every tensor (fixing the buffer layout), remembering
  // how each is initialized.
  std::vector<Init> inits;
  auto declare = [&](const std::string& name, std::size_t size, bool decay, Init init) {
    inits.push_back(init);
    return params_.declare(name, size, decay);
  };
  const std::size_t d = c.d_model;
  const std::size_t h = c.ffn_hidden;
  const std::size_t i_tok = declare("tok_emb", c.vocab * d, false, Init::normal);
  const std::size_t i_pos = declare("pos_emb", c.max_seq * d, false, Init::normal);
  struct LayerIds {
    std::size_t norm1, qkv_w, qkv_b, out_w, out_b, norm2, gate;
    std::vector<std::size_t> ffn;  // 4 per expert (or 4 for the dense FFN)
  };
  std::vector<LayerIds> ids(c.layers);
  const std::size_t n_ffn = c.moe ? c.moe_options.experts : 1;
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    LayerIds& li = ids[l];
    li.norm1 = declare(p + "norm1.gain", d, false, Init::one);
    li.qkv_w = declare(p + "attn.qkv.weight", 3 * d * d, true, Init::normal);
    li.qkv_b = declare(p + "attn.qkv.bias", 3 * d, false, Init::zero);
    li.out_w = declare(p + "attn.out.weight", d * d, true, Init::residual_out);
    li.out_b = declare(p + "attn.out.bias", d, false, Init::zero);
    li.norm2 = declare(p + "norm2.gain", d, false, Init::one);
    if (c.moe) li.gate = declare(p + "moe.gate.weight", c.moe_options.experts * d, true, Init::normal);
    for (std::size_t e = 0; e < n_ffn; ++e) {
      const std::string f = c.moe ? p + "moe.expert." + std::to_string(e) + "." : p + "ffn.";
      li.ffn.push_back(declare(f + "up.weight", h * d, true, Init::normal));
      li.ffn.push_back(declare(f + "up.bias", h, false, Init::zero));
      li.ffn.push_back(declare(f + "down.weight", d * h, true, Init::residual_out));
      li.ffn.push_back(declare(f + "down.bias", d, false, Init::zero));
    }
  }
  const std::size_t i_norm = declare("final_norm.gain", d, false, Init::one);
  const std::size_t i_head = declare("head.weight", c.vocab * d, true, Init::normal);
  params_.allocate();

  // Phase 2: deterministic init, in declaration order. Residual-branch
  // outputs start smaller (GPT-2's 1/sqrt(2 layers)) so the residual
  // stream's scale does not grow with depth.
  InitRng rng(c.seed);
  const double residual_std = c.init_std / std::sqrt(2.0 * static_cast<double>(c.layers));
  for (std::size_t i = 0; i < inits.size(); ++i) {
    std::span<T> v = params_.view(i).value;
    switch (inits[i]) {
      case Init::normal: fill_normal(v, c.init_std, rng); break;
      case Init::residual_out: fill_normal(v, residual_std, rng); break;
      case Init::zero: std::fill(v.begin(), v.end(), T(0)); break;
      case Init::one: std::fill(v.begin(), v.end(), T(1)); break;
    }
  }

  // Phase 3: the ops, holding views into the buffers.
  tok_emb_ = std::make_unique<Embedding<T>>(c.vocab, d, params_.view(i_tok));
  pos_emb_ = std::make_unique<Embedding<T>>(c.max_seq, d, params_.view(i_pos));
  for (std::size_t l = 0; l < c.layers; ++l) {
    const LayerIds& li = ids[l];
    auto layer = std::make_unique<Layer>();
    layer->norm1 = std::make_unique<RmsNorm<T>>(d, params_.view(li.norm1), c.norm_eps);
    layer->attn = std::make_unique<Attention<T>>(d, c.heads,
                                                 AttentionParams<T>{params_.view(li.qkv_w), params_.view(li.qkv_b),
                                                                    params_.view(li.out_w), params_.view(li.out_b)});
    layer->norm2 = std::make_unique<RmsNorm<T>>(d, params_.view(li.norm2), c.norm_eps);
    std::vector<FfnParams<T>> ffn;
    for (std::size_t e = 0; e < n_ffn; ++e)
      ffn.push_back(FfnParams<T>{params_.view(li.ffn[4 * e]), params_.view(li.ffn[4 * e + 1]),
                                 params_.view(li.ffn[4 * e + 2]), params_.view(li.ffn[4 * e + 3])});
    if (c.moe) {
      layer->moe = std::make_unique<FfnMoe<T>>(d, h, c.moe_options, params_.view(li.gate), ffn, static_cast<int>(l));
    } else {
      layer->dense = std::make_unique<FfnDense<T>>(d, h, ffn[0]);
    }
    layers_.push_back(std::move(layer));
  }
  final_norm_ = std::make_unique<RmsNorm<T>>(d, params_.view(i_norm), c.norm_eps);
  head_ = std::make_unique<Linear<T>>(d, c.vocab, params_.view(i_head), ParamView<T>{});
}

template <class T>
Model<T>::~Model() = default;

template <class T>
const StepStats& Model<T>::forward(const Batch& batch) {
  const std::size_t n = batch.rows * batch.seq;
  if (batch.tokens.size() != n || batch.labels.size() != n || batch.positions.size() != n || batch.segments.size() != n)
    throw std::invalid_argument("Model::forward: batch arrays must hold rows * seq entries");
  std::vector<T> x = tok_emb_->forward(batch.tokens);
  const std::vector<T> pos = pos_emb_->forward(batch.positions);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += pos[i];

  std::vector<std::uint8_t> active(n);
  for (std::size_t i = 0; i < n; ++i) active[i] = batch.segments[i] >= 0 ? 1 : 0;

  stats_ = StepStats{};
  for (auto& layer : layers_) {
    const std::vector<T> a = layer->attn->forward(layer->norm1->forward(x), batch.rows, batch.seq, batch.segments);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += a[i];
    const std::vector<T> normed = layer->norm2->forward(x);
    std::vector<T> f;
    if (layer->moe) {
      f = layer->moe->forward(normed, active);
      stats_.aux_loss += static_cast<double>(layer->moe->aux_loss());
      stats_.expert_loads.push_back(layer->moe->loads());
      stats_.dropped += layer->moe->dropped();
    } else {
      f = layer->dense->forward(normed);
    }
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += f[i];
  }
  const std::vector<T> logits = head_->forward(final_norm_->forward(x));
  stats_.loss = static_cast<double>(loss_.forward(logits, batch.labels, config_.vocab));
  stats_.tokens = loss_.counted();
  have_forward_ = true;
  return stats_;
}

template <class T>
void Model<T>::backward() {
  if (!have_forward_) throw std::logic_error("Model::backward without a forward");
  have_forward_ = false;
  std::vector<T> dx = final_norm_->backward(head_->backward(loss_.backward()));
  for (auto it = layers_.rbegin(); it != layers_.rend(); ++it) {
    Layer& layer = **it;
    // MoE backward adds the aux-loss gradient into its gate path itself.
    const std::vector<T> df = layer.moe ? layer.moe->backward(dx) : layer.dense->backward(dx);
    const std::vector<T> dn2 = layer.norm2->backward(df);
    for (std::size_t i = 0; i < dx.size(); ++i) dx[i] += dn2[i];
    const std::vector<T> dn1 = layer.norm1->backward(layer.attn->backward(dx));
    for (std::size_t i = 0; i < dx.size(); ++i) dx[i] += dn1[i];
  }
  tok_emb_->backward(dx);
  pos_emb_->backward(dx);
}

template <class T>
T Model<T>::forward_backward(const Batch& batch, bool accumulate) {
  if (!accumulate) zero_grad();
  forward(batch);
  backward();
  return static_cast<T>(stats_.loss);
}

template <class T>
void Model<T>::set_selector(const ExpertSelector<T>& selector) {
  for (auto& layer : layers_)
    if (layer->moe) layer->moe->set_selector(selector);
}

template <class T>
void Model<T>::for_each_linear(const std::function<void(const std::string&, Linear<T>&)>& fn) {
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    Layer& layer = *layers_[l];
    const std::string p = "layers." + std::to_string(l) + ".";
    fn(p + "attn.qkv", layer.attn->qkv());
    fn(p + "attn.out", layer.attn->out());
    if (layer.moe) {
      fn(p + "moe.gate", layer.moe->gate());
      for (std::size_t e = 0; e < layer.moe->num_experts(); ++e) {
        const std::string f = p + "moe.expert." + std::to_string(e) + ".";
        fn(f + "up", layer.moe->expert(e).up());
        fn(f + "down", layer.moe->expert(e).down());
      }
    } else {
      fn(p + "ffn.up", layer.dense->up());
      fn(p + "ffn.down", layer.dense->down());
    }
  }
  fn("head", *head_);
}

template class Model<float>;
template class Model<double>;

}  // namespace frugal_demo
