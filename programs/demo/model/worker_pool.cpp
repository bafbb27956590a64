#include "worker_pool.hpp"

#include <memory>
#include <utility>

namespace frugal_demo {
namespace {

thread_local bool t_inside_job = false;

// Sets t_inside_job for a scope, restoring the previous value.
class InsideJob {
 public:
  InsideJob() : previous_(t_inside_job) { t_inside_job = true; }
  ~InsideJob() { t_inside_job = previous_; }
  InsideJob(const InsideJob&) = delete;
  InsideJob& operator=(const InsideJob&) = delete;

 private:
  bool previous_;
};

}  // namespace

WorkerPool::WorkerPool(std::size_t helpers) {
  threads_.reserve(helpers);
  for (std::size_t i = 0; i < helpers; ++i) threads_.emplace_back([this] { helper_loop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool WorkerPool::inside_job() { return t_inside_job; }

void WorkerPool::drain(std::unique_lock<std::mutex>& lock) {
  while (job_ != nullptr && next_chunk_ < chunks_) {
    const std::size_t chunk = next_chunk_++;
    const auto* job = job_;
    lock.unlock();
    std::exception_ptr error;
    try {
      InsideJob inside;
      (*job)(chunk);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !error_) error_ = error;
    if (--unfinished_ == 0) done_.notify_all();
  }
}

void WorkerPool::helper_loop() {
  std::unique_lock lock(mutex_);
  std::uint64_t seen = generation_;
  while (true) {
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    drain(lock);
  }
}

void WorkerPool::run(std::size_t chunks, const std::function<void(std::size_t)>& job) {
  if (chunks == 0) return;
  std::unique_lock lock(mutex_);
  job_ = &job;
  chunks_ = chunks;
  next_chunk_ = 0;
  unfinished_ = chunks;
  error_ = nullptr;
  ++generation_;
  if (!threads_.empty() && chunks > 1) wake_.notify_all();
  drain(lock);  // the caller works too, so no chunk waits for a slow wake-up
  done_.wait(lock, [&] { return unfinished_ == 0; });
  job_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void run_parallel(std::size_t helpers, std::size_t chunks, const std::function<void(std::size_t)>& job) {
  static std::mutex pool_mutex;
  static std::unique_ptr<WorkerPool> pool;
  std::unique_lock lock(pool_mutex, std::try_to_lock);
  if (!lock.owns_lock() || WorkerPool::inside_job() || helpers == 0) {
    for (std::size_t c = 0; c < chunks; ++c) job(c);
    return;
  }
  if (!pool || pool->helpers() != helpers) {
    pool.reset();  // joins the old helpers first
    pool = std::make_unique<WorkerPool>(helpers);
  }
  pool->run(chunks, job);
}

}  // namespace frugal_demo
