// Forward + backward throughput of the demo model (prints tokens/s).
// Usage: frugal_demo_model_bench [threads] [steps] [dense|moe]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "adamw.hpp"
#include "model.hpp"
#include "tensor_math.hpp"

int main(int argc, char** argv) {
  using namespace frugal_demo;
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 5;
  const bool moe = argc > 3 ? std::string(argv[3]) != "dense" : true;
  set_num_threads(threads);

  ModelConfig config;
  config.vocab = 256;
  config.d_model = 64;
  config.heads = 4;
  config.layers = 2;
  config.max_seq = 128;
  config.ffn_hidden = 128;
  config.moe = moe;
  config.moe_options.experts = 4;
  config.moe_options.top_k = 2;
  Model<float> model(config);
  AdamW<float> opt(model.parameters(), model.gradients(), AdamWOptions{}, model.parameter_set().decay_mask());

  Batch batch;
  batch.rows = 8;
  batch.seq = 128;
  const std::size_t n = batch.rows * batch.seq;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t col = i % batch.seq;
    // Two packed sequences per row (64 + 64 tokens).
    batch.tokens.push_back(static_cast<std::int32_t>((i * 7 + 3) % 256));
    batch.labels.push_back(static_cast<std::int32_t>((i * 7 + 10) % 256));
    batch.positions.push_back(static_cast<std::int32_t>(col % 64));
    batch.segments.push_back(static_cast<std::int32_t>(col / 64));
  }

  model.forward_backward(batch);  // warm-up
  const auto start = std::chrono::steady_clock::now();
  float loss = 0;
  for (int s = 0; s < steps; ++s) {
    loss = model.forward_backward(batch);
    opt.step(1e-3);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s, %d thread(s): %zu params, %.0f tokens/s forward+backward+AdamW (%.1f ms/step, loss %.3f)\n",
              moe ? "MoE 4x top-2" : "dense", threads, model.parameters().size(), static_cast<double>(n) * steps / secs,
              1000.0 * secs / steps, static_cast<double>(loss));
  return 0;
}
