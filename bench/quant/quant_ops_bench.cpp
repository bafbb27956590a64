// quant_ops_bench: CPU throughput of the quant_fp8 quantize operation (the
// plugin's host path, plugins/quant_fp8/algorithms/ops) for every recipe, on one
// thread and on all, next to a memcpy of the same input buffer measured in
// the same run. GB/s counts the input bytes read; "x memcpy" is the ratio
// of the quantize time to the memcpy time of that buffer (1.0 = as fast as
// copying it). Usage: quant_ops_bench [--rows R] [--cols C] (default 4096 x 4096).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "best_time.hpp"
#include "command_spec.hpp"
#include "formats/half.hpp"
#include "frugal/tensor.h"
#include "ops/cpu_ops.hpp"
#include "program_main.hpp"

using namespace frugal::quant;
using frugal::bench::best_seconds;

namespace {

struct Case {
  const char* name;
  ops::Recipe recipe;
  std::int64_t block_rows;  // 0: all rows
  std::int64_t block_cols;  // 0: all columns
  bool transpose;
};

const frugal::args::Spec& command_line() {
  static const frugal::args::Spec spec{
      "quant_ops_bench",
      "CPU throughput of quant_fp8's quantize, every recipe",
      "CPU throughput of the quant_fp8 quantize operation (the plugin's host path) for every recipe, on one thread "
      "and on all, next to a memcpy of the same input buffer measured in the same run. GB/s counts the input bytes "
      "read; \"x memcpy\" is the ratio of the quantize time to the memcpy time of that buffer (1.0 = as fast as "
      "copying it).",
      {},
      {frugal::args::value_flag("--rows", "R", "rows of the fp32 input, 1 to 65536 (default 4096)"),
       frugal::args::value_flag("--cols", "C", "columns of the fp32 input, 1 to 65536 (default 4096)")}};
  return spec;
}

int bench(std::int64_t rows, std::int64_t cols) {
  const auto n = static_cast<std::size_t>(rows * cols);
  std::vector<float> in(n);
  std::uint32_t s = 12345;
  for (auto& x : in) {
    s = s * 1664525u + 1013904223u;
    x = (static_cast<float>(s >> 8) * 0x1p-24f - 0.5f) * 8.0f;
  }
  std::vector<std::uint16_t> in_bf16(n);
  for (std::size_t i = 0; i < n; ++i) in_bf16[i] = fp32_to_bf16(in[i]);
  std::vector<std::uint8_t> codes(n), codes_t(n);
  std::vector<float> copy(n);
  std::vector<float> scale_inv(n / 32 + 1), scale(n / 32 + 1);
  std::vector<std::uint8_t> e8m0(n / 32 + 1);
  float amax = 0.0f;
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());

  const double t_copy32 = best_seconds(5, [&] { std::memcpy(copy.data(), in.data(), n * 4); });
  const double t_copy16 = best_seconds(5, [&] { std::memcpy(copy.data(), in_bf16.data(), n * 2); });
  std::printf("%lld x %lld, fp32 -> E4M3FN; memcpy of the input: fp32 %.2f GB/s, bf16 %.2f GB/s\n",
              static_cast<long long>(rows), static_cast<long long>(cols), static_cast<double>(n) * 4 / t_copy32 * 1e-9,
              static_cast<double>(n) * 2 / t_copy16 * 1e-9);
  std::printf("%-28s %-6s %8s %10s %8s %10s\n", "recipe", "input", "GB/s 1t", "x memcpy", "GB/s", "x memcpy");

  const Case cases[] = {
      {"delayed (per-tensor)", ops::Recipe::delayed, 0, 0, false},
      {"delayed + transpose", ops::Recipe::delayed, 0, 0, true},
      {"current (per-tensor)", ops::Recipe::current, 0, 0, false},
      {"per-channel (rows)", ops::Recipe::per_channel, 1, 0, false},
      {"block 1x128", ops::Recipe::block, 1, 128, false},
      {"block 128x128", ops::Recipe::block, 128, 128, false},
      {"mx (1x32, E8M0)", ops::Recipe::mx, 1, 32, false},
  };
  for (const Case& c : cases) {
    for (const bool bf16 : {false, true}) {
      ops::QuantizeOp op;
      op.input = {{bf16 ? static_cast<void*>(in_bf16.data()) : static_cast<void*>(in.data()), rows, cols, cols},
                  bf16 ? FRUGAL_DTYPE_BFLOAT16 : FRUGAL_DTYPE_FLOAT32};
      op.output = {{codes.data(), rows, cols, cols}, FRUGAL_DTYPE_FLOAT8_E4M3FN};
      const ops::Matrix out_t{{codes_t.data(), cols, rows, rows}, FRUGAL_DTYPE_FLOAT8_E4M3FN};
      op.output_t = c.transpose ? &out_t : nullptr;
      op.format = ops::ElementFormat::e4m3;
      op.recipe = c.recipe;
      op.block_rows = c.block_rows == 0 ? rows : c.block_rows;
      op.block_cols = c.block_cols == 0 ? cols : c.block_cols;
      op.fixed_scale = 32.0f;
      op.fixed_scale_inv = 1.0f / 32.0f;
      op.scales.scale_inv = c.recipe == ops::Recipe::mx ? static_cast<void*>(e8m0.data()) : scale_inv.data();
      op.scales.scale = c.recipe == ops::Recipe::mx ? nullptr : scale.data();
      op.scales.amax = &amax;
      const double bytes = static_cast<double>(n) * (bf16 ? 2 : 4);
      const double t_copy = bf16 ? t_copy16 : t_copy32;
      op.threads = 1;
      const double t1 = best_seconds(3, [&] { ops::quantize_cpu(op); });
      op.threads = hw;
      const double tn = best_seconds(3, [&] { ops::quantize_cpu(op); });
      std::printf("%-28s %-6s %8.2f %10.2f %8.2f %10.2f  (%u threads)\n", c.name, bf16 ? "bf16" : "fp32",
                  bytes / t1 * 1e-9, t1 / t_copy, bytes / tn * 1e-9, tn / t_copy, hw);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return frugal::args::program_main(argc, argv, command_line(), [](const frugal::args::ParsedArgs& args) {
    return bench(frugal::args::int_value(args, "--rows", 4096, 1, 65536),
                 frugal::args::int_value(args, "--cols", 4096, 1, 65536));
  });
}
