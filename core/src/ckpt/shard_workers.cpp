#include "ckpt/shard_workers.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <future>
#include <vector>

namespace frugal::ckpt {

void for_each_shard(size_t count, const std::function<void(size_t)>& work) {
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  auto worker = [&] {
    for (size_t i; !failed.load() && (i = next.fetch_add(1)) < count;) {
      try {
        work(i);
      } catch (...) {
        failed.store(true);
        throw;
      }
    }
  };
  std::vector<std::future<void>> helpers;
  for (size_t w = 1; w < std::min(kShardWorkers, count); ++w) helpers.push_back(std::async(std::launch::async, worker));
  std::exception_ptr first_failure;
  try {
    worker();
  } catch (...) {
    first_failure = std::current_exception();
  }
  for (auto& h : helpers) {  // join all before unwinding: they use the caller's buffers
    try {
      h.get();
    } catch (...) {
      if (!first_failure) first_failure = std::current_exception();
    }
  }
  if (first_failure) std::rethrow_exception(first_failure);
}

}  // namespace frugal::ckpt
