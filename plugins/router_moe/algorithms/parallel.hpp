// Deterministic block parallelism for the router's loops.
//
// [0, n) is cut into fixed blocks of `block` items, independent of the
// thread count; each thread takes a contiguous run of blocks. Callers write
// disjoint outputs per item and reduce per-block partials in block order, so
// any thread count gives bit-identical results.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace frugal::router {

// 0 means std::thread::hardware_concurrency() (at least 1).
[[nodiscard]] inline unsigned resolve_threads(unsigned threads) noexcept {
  if (threads != 0) return threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

[[nodiscard]] constexpr int64_t block_count(int64_t n, int64_t block) noexcept { return (n + block - 1) / block; }

// Calls fn(block_index, begin, end) for every block. An exception from fn is
// rethrown on the caller's thread after all threads stop: the one from the
// lowest block that threw, so the error does not depend on timing either.
template <class Fn>
void parallel_blocks(int64_t n, int64_t block, unsigned threads, Fn&& fn) {
  const int64_t blocks = block_count(n, block);
  const int64_t workers = std::min<int64_t>(resolve_threads(threads), blocks);
  auto run = [&](int64_t first, int64_t last) {
    for (int64_t b = first; b < last; ++b) fn(b, b * block, std::min(n, (b + 1) * block));
  };
  if (workers <= 1) {
    run(0, blocks);
    return;
  }
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(workers));
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(workers - 1));
  auto range = [&](int64_t w) {
    try {
      run(blocks * w / workers, blocks * (w + 1) / workers);
    } catch (...) {
      errors[static_cast<std::size_t>(w)] = std::current_exception();
    }
  };
  for (int64_t w = 1; w < workers; ++w) pool.emplace_back(range, w);
  range(0);  // the caller's thread takes the first run
  for (auto& t : pool) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace frugal::router
