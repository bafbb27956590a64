// quant_fp8_exhaustive: all 2^32 fp32 bit patterns through fp32 -> fp8 in
// both formats and both saturation modes, against the CUDA toolkit's host
// reference, on every hardware thread. Run by hand in a Release build (it
// takes minutes, so it is not a ctest); prints the time and the mismatch
// count, and exits non-zero on any mismatch.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>

#include "formats/fp8.hpp"
#include "fp8_reference.hpp"
#include "test_support.hpp"

using namespace frugal::quant;

int main() {
  const auto start = std::chrono::steady_clock::now();
  std::atomic<int> shown{0};
  const std::uint64_t mismatches =
      quant_test::parallel_count(std::uint64_t{1} << 32, [&shown](std::uint64_t b, std::uint64_t e) {
        std::uint64_t bad = 0;
        for (std::uint64_t i = b; i < e; ++i) {
          const float x = bits_float(static_cast<std::uint32_t>(i));
          for (const auto& mode : quant_test::all_modes) {
            const auto got = fp32_to_fp8(x, mode.format, mode.sat);
            const auto want = quant_test::ref_fp32_to_fp8(x, mode.format, mode.sat);
            if (got != want) {
              ++bad;
              if (shown.fetch_add(1) < 16) {
                std::printf("mismatch %s: 0x%08x got 0x%02x want 0x%02x\n", mode.name, static_cast<unsigned>(i),
                            unsigned{got}, unsigned{want});
              }
            }
          }
        }
        return bad;
      });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "quant_fp8_exhaustive: 2^32 fp32 patterns x 4 modes (e4m3fn, e5m2; satfinite, nosat): "
      "%llu mismatches, %.1f s\n",
      static_cast<unsigned long long>(mismatches), seconds);
  return mismatches == 0 ? 0 : 1;
}
