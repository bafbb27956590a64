#include "ckpt/parallel_copy.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

namespace frugal::ckpt {
namespace {

constexpr size_t kChunk = size_t{16} << 20;  // unit of work handed to a thread
constexpr size_t kParallelThreshold = size_t{64} << 20;
constexpr unsigned kMaxThreads = 8;

}  // namespace

void parallel_memcpy(const std::vector<CopyTask>& tasks) {
  size_t total = 0;
  for (const auto& t : tasks) total += t.bytes;
  const unsigned threads = std::min(kMaxThreads, std::max(1u, std::thread::hardware_concurrency()));
  if (total < kParallelThreshold || threads == 1) {
    for (const auto& t : tasks) std::memcpy(t.dst, t.src, t.bytes);
    return;
  }
  // Cut every task into chunks; threads pull chunks until none is left.
  struct Chunk {
    char* dst;
    const char* src;
    size_t bytes;
  };
  std::vector<Chunk> chunks;
  for (const auto& t : tasks)
    for (size_t offset = 0; offset < t.bytes; offset += kChunk)
      chunks.push_back({static_cast<char*>(t.dst) + offset, static_cast<const char*>(t.src) + offset,
                        std::min(kChunk, t.bytes - offset)});
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < chunks.size();) std::memcpy(chunks[i].dst, chunks[i].src, chunks[i].bytes);
  };
  std::vector<std::thread> helpers;
  for (unsigned i = 1; i < threads; ++i) helpers.emplace_back(work);
  work();  // the calling thread copies too
  for (auto& helper : helpers) helper.join();
}

}  // namespace frugal::ckpt
