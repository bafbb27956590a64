// Splits [0, items) into contiguous chunks and runs them on std::threads
// (the caller's thread takes the last). Every operation in ops/ computes each
// output element from its inputs alone, or combines per-chunk results with
// an exact, order-free max, so the chunking never changes a result: only
// the time. Internal to ops/.
#pragma once

#include <cstddef>
#include <functional>

namespace frugal::quant::ops::detail {

// Below this much work (elements) a thread costs more to start than it saves.
inline constexpr std::size_t kMinWorkPerThread = std::size_t{1} << 15;

// How many chunks `items` items of `work_per_item` elements each are cut
// into: at most `threads` (0: the hardware's concurrency), at least 1, and
// none with less than kMinWorkPerThread of work unless there is only one.
[[nodiscard]] unsigned chunk_count(std::size_t items, std::size_t work_per_item, unsigned threads) noexcept;

// Runs fn(chunk, begin, end) for `chunks` (>= 1, <= items unless items is
// 0) near-equal pieces of [0, items), concurrently, and returns when all
// are done. An exception from any piece is rethrown here after all finish.
void run_chunks(std::size_t items, unsigned chunks,
                const std::function<void(unsigned chunk, std::size_t begin, std::size_t end)>& fn);

// The common case: chunk_count then run_chunks over fn(begin, end).
void parallel_for(std::size_t items, std::size_t work_per_item, unsigned threads,
                  const std::function<void(std::size_t begin, std::size_t end)>& fn);

}  // namespace frugal::quant::ops::detail
