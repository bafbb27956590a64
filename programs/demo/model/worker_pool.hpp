// The threads behind parallel_for: started once, asleep between jobs.
//
// Starting a thread per matrix product cost tens of microseconds, and a
// training step runs a few hundred products; on the demo's small matrices
// that start-up was a large share of each product's time.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace frugal_demo {

class WorkerPool {
 public:
  // Starts `helpers` threads (0: every job runs on the caller alone).
  explicit WorkerPool(std::size_t helpers);
  ~WorkerPool();  // wakes and joins the helpers
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  [[nodiscard]] std::size_t helpers() const { return threads_.size(); }

  // Calls job(c) once for every c in [0, chunks), on the caller and the
  // helpers, and returns when all calls are done. The first exception a
  // call throws is rethrown here (the other chunks still run). One job at a
  // time: callers serialize (run_parallel below does).
  void run(std::size_t chunks, const std::function<void(std::size_t)>& job);

  // True on a helper thread and inside job(): a nested parallel_for runs
  // inline instead of waiting for helpers that are busy running its parent.
  static bool inside_job();

 private:
  void helper_loop();
  // Takes and runs chunks until none is left; `lock` held on entry and exit.
  void drain(std::unique_lock<std::mutex>& lock);

  std::mutex mutex_;
  std::condition_variable wake_;  // a new job, or stop
  std::condition_variable done_;  // the last chunk finished
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::size_t chunks_ = 0;
  std::size_t next_chunk_ = 0;
  std::size_t unfinished_ = 0;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

// Runs job(c) for c in [0, chunks) on the process-wide pool, resized to
// `helpers` threads when that differs from its size. When the pool is busy
// (another thread's job, or a nested call from inside a job), the chunks
// run on the caller, in order: same results, no deadlock.
void run_parallel(std::size_t helpers, std::size_t chunks, const std::function<void(std::size_t)>& job);

}  // namespace frugal_demo
