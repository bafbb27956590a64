#include "ops/chunks.hpp"

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

namespace frugal::quant::ops::detail {

unsigned chunk_count(std::size_t items, std::size_t work_per_item, unsigned threads) noexcept {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t work = items * std::max<std::size_t>(work_per_item, 1);
  const std::size_t by_work = work / kMinWorkPerThread;
  const std::size_t chunks = std::min({std::size_t{threads}, by_work, items});
  return static_cast<unsigned>(std::max<std::size_t>(chunks, 1));
}

void run_chunks(std::size_t items, unsigned chunks,
                const std::function<void(unsigned chunk, std::size_t begin, std::size_t end)>& fn) {
  const auto begin_of = [&](unsigned c) { return items * c / chunks; };
  if (chunks <= 1) {
    fn(0, 0, items);
    return;
  }
  std::vector<std::exception_ptr> errors(chunks);
  const auto run = [&](unsigned c) {
    try {
      fn(c, begin_of(c), begin_of(c + 1));
    } catch (...) {
      errors[c] = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> workers;  // joined on scope exit, even if starting one throws
    workers.reserve(chunks - 1);
    for (unsigned c = 0; c + 1 < chunks; ++c) workers.emplace_back(run, c);
    run(chunks - 1);
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

void parallel_for(std::size_t items, std::size_t work_per_item, unsigned threads,
                  const std::function<void(std::size_t begin, std::size_t end)>& fn) {
  run_chunks(items, chunk_count(items, work_per_item, threads),
             [&](unsigned, std::size_t begin, std::size_t end) { fn(begin, end); });
}

}  // namespace frugal::quant::ops::detail
