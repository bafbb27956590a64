// router_gpu_bench: router_moe's CUDA path on one GPU at a DeepSeek-V3-like
// layer, each move next to a device-to-device copy measured in the same run.
//
//   route    deepseek_v3 (sigmoid, 8 groups, top-4 groups, a bias, dropless)
//            and topk_softmax (dropless, aux and z-loss) on bf16 logits:
//            the whole plan, in microseconds;
//   permute  x [T, H] -> [T k, H] bf16 rows by the deepseek plan;
//   combine  [T k, H] -> [T, H] bf16, k weighted rows per token;
//   copy     cudaMemcpyAsync device to device of the permuted buffer.
// GB/s counts bytes read + written (a copy of n bytes moves 2n); "% of
// copy" compares with the copy's GB/s. Timing: CUDA events around each
// call on one stream, the best of the timed calls after warm-up.
// Defaults T = 65536, E = 256, k = 8, H = 7168 (about 17 GiB of buffers).
// usage: router_gpu_bench [--tokens T] [--experts E] [--k K] [--hidden H]
// Exit status 1 on any CUDA or router error.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "command_spec.hpp"
#include "cuda/cuda_ops.hpp"
#include "cuda_support/cuda_support.hpp"
#include "program_main.hpp"

namespace {

namespace rc = frugal::router::cuda;

// CUDA errors worded as the plugin words them (plugins/cuda_support).
void ok(cudaError_t s, const char* what) { frugal::plugin_cuda::check(s, what); }

class Device {
 public:
  explicit Device(std::size_t bytes) { ok(cudaMalloc(&p_, bytes), "cudaMalloc"); }
  ~Device() { cudaFree(p_); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
};

// bf16 bits of a pseudo-random value of about unit variance, from its index.
__global__ void fill_bf16(std::uint16_t* p, std::int64_t n, std::uint64_t seed, float scale) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    std::uint64_t h = (static_cast<std::uint64_t>(i) + seed) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    const float u = static_cast<float>(h & 0xFFFFFFu) * (1.0f / 16777216.0f) - 0.5f;  // uniform, variance 1/12
    p[i] = static_cast<std::uint16_t>(__float_as_uint(u * 3.4641f * scale) >> 16);
  }
}

// The best milliseconds of `reps` calls on `stream`, after 3 warm-up calls.
template <class Fn>
double best_ms(cudaStream_t stream, int reps, Fn call) {
  cudaEvent_t a = nullptr;
  cudaEvent_t b = nullptr;
  ok(cudaEventCreate(&a), "cudaEventCreate");
  ok(cudaEventCreate(&b), "cudaEventCreate");
  for (int i = 0; i < 3; ++i) call();
  ok(cudaStreamSynchronize(stream), "warm-up");
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    ok(cudaEventRecord(a, stream), "cudaEventRecord");
    call();
    ok(cudaEventRecord(b, stream), "cudaEventRecord");
    ok(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0.0f;
    ok(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    best = std::min(best, static_cast<double>(ms));
  }
  ok(cudaEventDestroy(a), "cudaEventDestroy");
  ok(cudaEventDestroy(b), "cudaEventDestroy");
  return best;
}

// Plan tensors for T tokens, k slots each, dropless (R = T k).
struct Plan {
  Device ids, weights, dropped, slot_row, expert_offsets, expert_demand, row_token, row_weight, token_offsets,
      token_rows, mean_prob, losses;
  rc::DevicePlan view;

  Plan(std::size_t T, std::size_t E, std::size_t k)
      : ids(4 * T * k),
        weights(4 * T * k),
        dropped(T * k),
        slot_row(8 * T * k),
        expert_offsets(8 * (E + 1)),
        expert_demand(8 * E),
        row_token(8 * T * k),
        row_weight(4 * T * k),
        token_offsets(8 * (T + 1)),
        token_rows(8 * T * k),
        mean_prob(4 * E),
        losses(4 * 2) {
    view.expert_ids = ids.as<std::int32_t>();
    view.weights = weights.as<float>();
    view.dropped = dropped.as<std::uint8_t>();
    view.slot_row = slot_row.as<std::int64_t>();
    view.expert_offsets = expert_offsets.as<std::int64_t>();
    view.expert_demand = expert_demand.as<std::int64_t>();
    view.row_token = row_token.as<std::int64_t>();
    view.row_weight = row_weight.as<float>();
    view.token_offsets = token_offsets.as<std::int64_t>();
    view.token_rows = token_rows.as<std::int64_t>();
    view.mean_prob = mean_prob.as<float>();
    view.losses = losses.as<float>();
    view.max_rows = static_cast<std::int64_t>(T * k);
  }
};

// The layer's sizes: the defaults, or what the command line gives.
struct Layer {
  std::int64_t T = 65536, E = 256, k = 8, H = 7168;
};

const frugal::args::Spec& command_line() {
  using frugal::args::value_flag;
  static const frugal::args::Spec spec{
      "router_gpu_bench",
      "router_moe's CUDA route, permute and combine, each next to a device copy",
      "router_moe's CUDA path on one GPU at a DeepSeek-V3-like layer (bf16 logits and rows), each move next to a "
      "device-to-device copy measured in the same run. The defaults take about 17 GiB of buffers. Exit status 1 on "
      "any CUDA or router error; without a device it prints SKIP and exits 0.",
      {},
      {value_flag("--tokens", "T", "tokens routed, 1 to 2^24 (default 65536)"),
       value_flag("--experts", "E", "experts, 1 to 65536 (default 256)"),
       value_flag("--k", "K", "experts per token, 1 to E (default 8)"),
       value_flag("--hidden", "H", "the hidden size of the permuted rows, 1 to 65536 (default 7168)")}};
  return spec;
}

Layer layer_from(const frugal::args::ParsedArgs& args) {
  Layer l;
  l.T = frugal::args::int_value(args, "--tokens", l.T, 1, std::int64_t{1} << 24);
  l.E = frugal::args::int_value(args, "--experts", l.E, 1, 65536);
  l.k = frugal::args::int_value(args, "--k", l.k, 1, l.E);
  l.H = frugal::args::int_value(args, "--hidden", l.H, 1, 65536);
  return l;
}

// "name (sm_XY, N SMs)" of device 0, or "" without a device.
std::string device_description() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) return {};
  cudaDeviceProp p{};
  ok(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
  return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
         std::to_string(p.multiProcessorCount) + " SMs)";
}

int bench(const Layer& layer) {
  const auto [T, E, k, H] = layer;
  try {
    const std::string device = device_description();
    if (device.empty()) {
      std::printf("SKIP: no CUDA device\n");
      return 0;
    }
    std::printf("device: %s; T=%lld E=%lld k=%lld H=%lld bf16\n", device.c_str(), static_cast<long long>(T),
                static_cast<long long>(E), static_cast<long long>(k), static_cast<long long>(H));
    cudaStream_t stream = nullptr;
    ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    const std::int64_t R = T * k;

    const auto count = [](std::int64_t n) { return static_cast<std::size_t>(n); };
    Device logits(2 * count(T * E));
    fill_bf16<<<1024, 256, 0, stream>>>(logits.as<std::uint16_t>(), T * E, 1, 2.0f);
    ok(cudaGetLastError(), "fill");
    std::vector<float> bias(static_cast<std::size_t>(E));
    for (std::size_t e = 0; e < bias.size(); ++e) bias[e] = 0.001f * static_cast<float>(static_cast<int>(e % 17) - 8);
    Plan plan(count(T), count(E), count(k));

    rc::RouteRequest deepseek;
    deepseek.kind = rc::RouterKind::deepseek_v3;
    deepseek.logits = {{logits.as<void>(), T, E, E}, frugal::router::LogitType::bf16};
    deepseek.k = k;
    deepseek.score = frugal::router::ScoreFunction::sigmoid;
    deepseek.groups = E % 8 == 0 ? 8 : 1;
    deepseek.topk_groups = E % 8 == 0 ? 4 : 1;
    deepseek.route_scale = 2.5f;
    deepseek.bias = bias.data();
    deepseek.stream = stream;
    rc::RouteRequest topk = deepseek;
    topk.kind = rc::RouterKind::topk_softmax;
    topk.bias = nullptr;
    topk.aux_coef = 0.01f;
    topk.z_coef = 0.001f;
    rc::RouteRequest topk_no_z = topk;
    topk_no_z.z_coef = 0.0f;

    const int reps = 10;
    const double ds_ms = best_ms(stream, reps, [&] { rc::route(deepseek, plan.view); });
    const double tk_ms = best_ms(stream, reps, [&] { rc::route(topk, plan.view); });
    const double tk0_ms = best_ms(stream, reps, [&] { rc::route(topk_no_z, plan.view); });
    // The moves use the deepseek plan (k rows per token, dropless).
    rc::route(deepseek, plan.view);

    const std::size_t row_bytes = 2 * count(H);
    Device x(row_bytes * count(T)), permuted(row_bytes * count(R)), combined(row_bytes * count(T)),
        copy(row_bytes * count(R));
    fill_bf16<<<4096, 256, 0, stream>>>(x.as<std::uint16_t>(), T * H, 2, 1.0f);
    fill_bf16<<<4096, 256, 0, stream>>>(permuted.as<std::uint16_t>(), R * H, 3, 1.0f);
    ok(cudaGetLastError(), "fill");

    const double copy_ms = best_ms(stream, reps, [&] {
      ok(cudaMemcpyAsync(copy.as<void>(), permuted.as<void>(), row_bytes * count(R), cudaMemcpyDeviceToDevice, stream),
         "cudaMemcpyAsync");
    });
    const double permute_ms = best_ms(stream, reps, [&] {
      rc::permute(plan.view.row_token, R, x.as<void>(), H, permuted.as<void>(), H, H, rc::Element::bf16, stream);
    });
    const double combine_ms = best_ms(stream, reps, [&] {
      rc::combine(plan.view.token_offsets, plan.view.token_rows, plan.view.row_weight, T, permuted.as<void>(), H,
                  combined.as<void>(), H, H, rc::Element::bf16, stream);
    });
    ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

    const auto gbps = [](double bytes, double ms) { return bytes / (ms * 1e-3) / 1e9; };
    const double copy_gbps = gbps(2.0 * static_cast<double>(row_bytes * count(R)), copy_ms);
    const double permute_gbps = gbps(2.0 * static_cast<double>(row_bytes * count(R)), permute_ms);
    const double combine_gbps = gbps(static_cast<double>(row_bytes * count(R + T)), combine_ms);
    std::printf("%-40s %9.3f ms %8.1f GB/s\n", "copy d2d (read+write)", copy_ms, copy_gbps);
    std::printf("%-40s %9.3f ms %8.1f GB/s %6.1f%% of copy\n", "permute bf16", permute_ms, permute_gbps,
                100.0 * permute_gbps / copy_gbps);
    std::printf("%-40s %9.3f ms %8.1f GB/s %6.1f%% of copy\n", "combine bf16", combine_ms, combine_gbps,
                100.0 * combine_gbps / copy_gbps);
    std::printf("%-40s %9.1f us\n", "route deepseek_v3 sigmoid g8/4 bias", ds_ms * 1e3);
    std::printf("%-40s %9.1f us\n", "route topk_softmax aux+z", tk_ms * 1e3);
    std::printf("%-40s %9.1f us\n", "route topk_softmax aux (no z-loss)", tk0_ms * 1e3);
    ok(cudaStreamDestroy(stream), "cudaStreamDestroy");
  } catch (const std::exception& e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return frugal::args::program_main(argc, argv, command_line(),
                                    [](const frugal::args::ParsedArgs& args) { return bench(layer_from(args)); });
}
