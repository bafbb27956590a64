// Chunked std::thread wrapper over the bulk conversions.
#include "formats/parallel.hpp"

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

#include "formats/bulk.hpp"
#include "formats/bulk_support.hpp"

namespace frugal::quant {
namespace {

// Runs fn(begin, end) -> float over `chunks` contiguous pieces of [0, size)
// and returns the max of the results (amaxes are >= 0, never NaN).
template <class Fn>
float run_chunks(std::size_t size, unsigned chunks, Fn fn) {
  if (chunks <= 1) return fn(std::size_t{0}, size);
  // Chunk edges on 64-element boundaries keep every piece's stores aligned
  // with the others' cache lines (no false sharing on the outputs).
  const std::size_t step = (size / chunks + 63) / 64 * 64;
  std::vector<float> results(chunks, 0.0f);
  {
    std::vector<std::jthread> workers;  // joined on scope exit, even if a start throws
    workers.reserve(chunks - 1);
    for (unsigned c = 0; c + 1 < chunks; ++c) {
      const std::size_t begin = std::min(size, c * step);
      const std::size_t end = std::min(size, begin + step);
      workers.emplace_back([&results, &fn, c, begin, end] { results[c] = fn(begin, end); });
    }
    const std::size_t last = std::min(size, (chunks - 1) * step);
    results[chunks - 1] = fn(last, size);
  }
  return *std::max_element(results.begin(), results.end());
}

}  // namespace

unsigned parallel_chunk_count(std::size_t size, unsigned max_threads) noexcept {
  if (max_threads == 0) max_threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t by_size = size / kParallelMinChunk;
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(max_threads, by_size)));
}

float fp32_to_fp8_parallel(std::span<const float> in, std::span<std::uint8_t> out, Fp8Format format, Saturation sat,
                           unsigned max_threads) {
  detail::require_same_size(in.size(), out.size());
  return run_chunks(in.size(), parallel_chunk_count(in.size(), max_threads), [&](std::size_t b, std::size_t e) {
    return fp32_to_fp8(in.subspan(b, e - b), out.subspan(b, e - b), format, sat);
  });
}

float fp16_to_fp8_parallel(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Fp8Format format,
                           Saturation sat, unsigned max_threads) {
  detail::require_same_size(in.size(), out.size());
  return run_chunks(in.size(), parallel_chunk_count(in.size(), max_threads), [&](std::size_t b, std::size_t e) {
    return fp16_to_fp8(in.subspan(b, e - b), out.subspan(b, e - b), format, sat);
  });
}

float bf16_to_fp8_parallel(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Fp8Format format,
                           Saturation sat, unsigned max_threads) {
  detail::require_same_size(in.size(), out.size());
  return run_chunks(in.size(), parallel_chunk_count(in.size(), max_threads), [&](std::size_t b, std::size_t e) {
    return bf16_to_fp8(in.subspan(b, e - b), out.subspan(b, e - b), format, sat);
  });
}

void fp8_to_fp32_parallel(std::span<const std::uint8_t> in, std::span<float> out, Fp8Format format,
                          unsigned max_threads) {
  detail::require_same_size(in.size(), out.size());
  run_chunks(in.size(), parallel_chunk_count(in.size(), max_threads), [&](std::size_t b, std::size_t e) {
    fp8_to_fp32(in.subspan(b, e - b), out.subspan(b, e - b), format);
    return 0.0f;
  });
}

}  // namespace frugal::quant
