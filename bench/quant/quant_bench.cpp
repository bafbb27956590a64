// quant_bench: CPU throughput of the bulk fp32 -> E4M3FN conversion (with
// its amax) on one thread, next to a memcpy of the same input buffer in the
// same run, plus the multi-threaded wrapper. GB/s counts the bytes read (4
// per element). Usage: quant_bench [--elements N] (default 2^24, 64 MiB in).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "best_time.hpp"
#include "command_spec.hpp"
#include "formats/bulk.hpp"
#include "formats/parallel.hpp"
#include "program_main.hpp"

using namespace frugal::quant;
using frugal::bench::best_seconds;

namespace {

const frugal::args::Spec& command_line() {
  static const frugal::args::Spec spec{
      "quant_bench",
      "CPU throughput of the bulk fp32 -> E4M3FN conversion",
      "CPU throughput of the bulk fp32 -> E4M3FN conversion (with its amax) on one thread, next to a memcpy of the "
      "same input buffer in the same run, plus the multi-threaded wrapper. GB/s counts the bytes read (4 per "
      "element).",
      {},
      {frugal::args::value_flag("--elements", "N", "fp32 elements converted, 1 to 2^33 (default 2^24: 64 MiB in)")}};
  return spec;
}

int bench(std::size_t n) {
  std::vector<float> in(n);
  std::uint32_t s = 12345;
  for (auto& x : in) {
    s = s * 1664525u + 1013904223u;
    x = (static_cast<float>(s >> 8) * 0x1p-24f - 0.5f) * 1000.0f;  // spans E4M3's range and overflows
  }
  std::vector<std::uint8_t> out(n);
  std::vector<float> copy(n);
  const double bytes = static_cast<double>(n) * sizeof(float);
  float amax = 0.0f;
  const double t_memcpy = best_seconds(5, [&] { std::memcpy(copy.data(), in.data(), n * sizeof(float)); });
  const double t_fp8 = best_seconds(5, [&] { amax = fp32_to_fp8(in, out, Fp8Format::e4m3fn, Saturation::finite); });
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  const double t_par =
      best_seconds(5, [&] { amax = fp32_to_fp8_parallel(in, out, Fp8Format::e4m3fn, Saturation::finite, threads); });
  std::printf("elements %zu (%.0f MiB fp32 in), amax %g\n", n, bytes / (1 << 20), static_cast<double>(amax));
  std::printf("memcpy, 1 thread:                 %6.2f GB/s\n", bytes / t_memcpy * 1e-9);
  std::printf("fp32 -> e4m3fn + amax, 1 thread:  %6.2f GB/s (read)\n", bytes / t_fp8 * 1e-9);
  std::printf("fp32 -> e4m3fn + amax, %u threads: %6.2f GB/s (read)\n", parallel_chunk_count(n, threads),
              bytes / t_par * 1e-9);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return frugal::args::program_main(argc, argv, command_line(), [](const frugal::args::ParsedArgs& args) {
    return bench(
        static_cast<std::size_t>(frugal::args::int_value(args, "--elements", int64_t{1} << 24, 1, int64_t{1} << 33)));
  });
}
