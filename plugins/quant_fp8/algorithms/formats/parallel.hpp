// Multi-threaded bulk conversions for big buffers: the span is cut into
// contiguous chunks, one std::thread each (the caller's thread takes the
// last), and the chunk amaxes are combined. Results are identical to the
// single-threaded functions in bulk.hpp.
//
// Threads only pay once a chunk outweighs starting a thread (tens of us), so
// a call uses at most size / kParallelMinChunk threads: anything below
// 2 * kParallelMinChunk elements runs on the caller's thread alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "formats/fp8.hpp"

namespace frugal::quant {

inline constexpr std::size_t kParallelMinChunk = std::size_t{1} << 19;  // elements

// max_threads 0: std::thread::hardware_concurrency().
float fp32_to_fp8_parallel(std::span<const float> in, std::span<std::uint8_t> out, Fp8Format format, Saturation sat,
                           unsigned max_threads = 0);
float fp16_to_fp8_parallel(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Fp8Format format,
                           Saturation sat, unsigned max_threads = 0);
float bf16_to_fp8_parallel(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Fp8Format format,
                           Saturation sat, unsigned max_threads = 0);
void fp8_to_fp32_parallel(std::span<const std::uint8_t> in, std::span<float> out, Fp8Format format,
                          unsigned max_threads = 0);

// How many chunks a buffer of `size` elements is cut into (exposed for tests).
unsigned parallel_chunk_count(std::size_t size, unsigned max_threads) noexcept;

}  // namespace frugal::quant
