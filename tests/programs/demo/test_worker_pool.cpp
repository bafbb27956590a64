// The pool behind parallel_for: every chunk exactly once for any pool
// size, exceptions reach the caller, nested and concurrent calls finish
// with the same results (run under TSan: label "concurrent").
#include <catch2/catch.hpp>

#include <atomic>
#include <cstddef>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tensor_math.hpp"
#include "worker_pool.hpp"

using namespace frugal_demo;

TEST_CASE("the pool runs every chunk exactly once, on the caller and its helpers") {
  for (std::size_t helpers : {0, 1, 3}) {
    WorkerPool pool(helpers);
    CHECK(pool.helpers() == helpers);
    for (std::size_t chunks : {1, 2, 5, 17}) {
      CAPTURE(helpers, chunks);
      std::vector<std::atomic<int>> calls(chunks);
      std::atomic<int> off_caller{0};
      std::atomic<int> outside_job{0};
      const auto caller = std::this_thread::get_id();
      // Catch2's assertions are not thread-safe: jobs only count.
      pool.run(chunks, [&](std::size_t c) {
        calls[c].fetch_add(1);
        if (!WorkerPool::inside_job()) outside_job.fetch_add(1);
        if (std::this_thread::get_id() != caller) off_caller.fetch_add(1);
      });
      for (std::size_t c = 0; c < chunks; ++c) CHECK(calls[c].load() == 1);
      CHECK(outside_job.load() == 0);
      if (helpers == 0) CHECK(off_caller.load() == 0);
    }
  }
  CHECK_FALSE(WorkerPool::inside_job());
}

TEST_CASE("a chunk's exception reaches the caller; the other chunks still run and the pool stays usable") {
  WorkerPool pool(2);
  std::atomic<int> ran{0};
  CHECK_THROWS_WITH(pool.run(8,
                             [&](std::size_t c) {
                               ran.fetch_add(1);
                               if (c == 3) throw std::runtime_error("chunk 3 failed");
                             }),
                    "chunk 3 failed");
  CHECK(ran.load() == 8);
  std::atomic<int> again{0};
  pool.run(4, [&](std::size_t) { again.fetch_add(1); });
  CHECK(again.load() == 4);
}

TEST_CASE("nested and concurrent parallel_for calls finish with the serial result") {
  set_num_threads(3);
  constexpr std::size_t kRows = 64, kCols = 4096;
  // Each row's sum, computed by an inner parallel_for over column blocks:
  // the outer call holds the pool, so the inner one runs inline.
  auto row_sums = [&] {
    std::vector<double> sums(kRows, 0.0);
    parallel_for(kRows, kCols * 64, [&](std::size_t begin, std::size_t end) {
      for (std::size_t r = begin; r < end; ++r) {
        std::vector<double> blocks(8, 0.0);
        parallel_for(8, kCols * 64, [&](std::size_t b0, std::size_t b1) {
          for (std::size_t b = b0; b < b1; ++b)
            for (std::size_t j = b * kCols / 8; j < (b + 1) * kCols / 8; ++j) blocks[b] += double(r * kCols + j);
        });
        sums[r] = std::accumulate(blocks.begin(), blocks.end(), 0.0);
      }
    });
    return sums;
  };
  std::vector<double> expected(kRows);
  for (std::size_t r = 0; r < kRows; ++r) {
    // sum of r*kCols + j for j in [0, kCols): exact in double at this size.
    expected[r] = double(r * kCols) * kCols + double(kCols) * (kCols - 1) / 2;
  }
  CHECK(row_sums() == expected);

  // Four threads at once: one holds the pool, the others run inline.
  std::vector<std::vector<double>> results(4);
  {
    std::vector<std::jthread> callers;
    for (auto& result : results) callers.emplace_back([&result, &row_sums] { result = row_sums(); });
  }
  for (const auto& result : results) CHECK(result == expected);
  set_num_threads(2);
}
