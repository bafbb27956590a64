// Host-memory copies of a snapshot, spread over a few threads: the training
// thread is blocked during a snapshot anyway, and one core rarely saturates
// memory bandwidth, so the stall drops below a single plain memcpy.
#pragma once

#include <cstddef>
#include <vector>

namespace frugal::ckpt {

struct CopyTask {
  void* dst;
  const void* src;
  size_t bytes;
};

// Runs every task; returns when all bytes are copied. Small totals stay on
// the calling thread (threads cost more than they save there).
void parallel_memcpy(const std::vector<CopyTask>& tasks);

}  // namespace frugal::ckpt
