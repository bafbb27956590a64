#include "tensor_math.hpp"

#include "worker_pool.hpp"

#include <algorithm>
#include <atomic>
#include <vector>

namespace frugal_demo {
namespace {

std::atomic<int> g_threads{2};

// Below this many flops per thread, handing work to a pool thread (waking
// it, a few microseconds) costs more than it saves.
constexpr std::size_t kMinWorkPerThread = std::size_t{1} << 14;

}  // namespace

void set_num_threads(int threads) { g_threads.store(std::max(1, threads)); }

int num_threads() { return g_threads.load(); }

void parallel_for(std::size_t count, std::size_t work_per_item,
                  const std::function<void(std::size_t, std::size_t)>& fn) {
  if (count == 0) return;
  const std::size_t total_work = count * std::max<std::size_t>(1, work_per_item);
  std::size_t threads = std::min<std::size_t>(static_cast<std::size_t>(num_threads()), count);
  threads = std::min(threads, std::max<std::size_t>(1, total_work / kMinWorkPerThread));
  if (threads <= 1) {
    fn(0, count);
    return;
  }
  const std::size_t chunk = (count + threads - 1) / threads;
  const std::size_t chunks = (count + chunk - 1) / chunk;
  // The pool keeps num_threads() - 1 helpers whatever this call uses, so
  // calls of different sizes do not resize it.
  run_parallel(static_cast<std::size_t>(num_threads()) - 1, chunks,
               [&](std::size_t c) { fn(c * chunk, std::min(count, (c + 1) * chunk)); });
}

// C[i, :] (+)= sum_p A(i, p) * B[p, :], where A(i, p) sits at
// a[i * a_row + p * a_col]: one kernel serves A and A^T. Four output rows
// at a time: each loaded row of B feeds four rows of C. Every C element
// still sums its k terms in ascending order, so blocking (and the thread
// split, which is by rows) changes no bit of the result.
template <class T>
void gemm_rows(const T* a, std::size_t a_row, std::size_t a_col, const T* b, T* c, std::size_t m, std::size_t k,
               std::size_t n, bool accumulate) {
  parallel_for(m, k * n, [=](std::size_t row_begin, std::size_t row_end) {
    if (!accumulate) std::fill(c + row_begin * n, c + row_end * n, T(0));
    std::size_t i = row_begin;
    for (; i + 4 <= row_end; i += 4) {
      T* c0 = c + i * n;
      T* c1 = c0 + n;
      T* c2 = c1 + n;
      T* c3 = c2 + n;
      for (std::size_t p = 0; p < k; ++p) {
        const T* ap = a + i * a_row + p * a_col;
        const T a0 = ap[0], a1 = ap[a_row], a2 = ap[2 * a_row], a3 = ap[3 * a_row];
        const T* bp = b + p * n;
        for (std::size_t j = 0; j < n; ++j) {
          const T bj = bp[j];
          c0[j] += a0 * bj;
          c1[j] += a1 * bj;
          c2[j] += a2 * bj;
          c3[j] += a3 * bj;
        }
      }
    }
    for (; i < row_end; ++i) {
      T* ci = c + i * n;
      for (std::size_t p = 0; p < k; ++p) {
        const T aip = a[i * a_row + p * a_col];
        const T* bp = b + p * n;
        for (std::size_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
      }
    }
  });
}

template <class T>
void gemm_nn(const T* a, const T* b, T* c, std::size_t m, std::size_t k, std::size_t n, bool accumulate) {
  gemm_rows(a, k, 1, b, c, m, k, n, accumulate);
}

template <class T>
void gemm_nt(const T* a, const T* b, T* c, std::size_t m, std::size_t k, std::size_t n, bool accumulate) {
  // One scratch per thread, kept between calls: this runs for every
  // forward product, and a fresh buffer each time was an allocation on
  // the hot path.
  thread_local std::vector<T> bt;
  bt.resize(k * n);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t p = 0; p < k; ++p) bt[p * n + j] = b[j * k + p];
  gemm_nn(a, bt.data(), c, m, k, n, accumulate);
}

// A is stored [k, m]: A(i, p) = a[p * m + i].
template <class T>
void gemm_tn_acc(const T* a, const T* b, T* c, std::size_t m, std::size_t k, std::size_t n) {
  gemm_rows(a, 1, m, b, c, m, k, n, true);
}

template void gemm_nn<float>(const float*, const float*, float*, std::size_t, std::size_t, std::size_t, bool);
template void gemm_nn<double>(const double*, const double*, double*, std::size_t, std::size_t, std::size_t, bool);
template void gemm_nt<float>(const float*, const float*, float*, std::size_t, std::size_t, std::size_t, bool);
template void gemm_nt<double>(const double*, const double*, double*, std::size_t, std::size_t, std::size_t, bool);
template void gemm_tn_acc<float>(const float*, const float*, float*, std::size_t, std::size_t, std::size_t);
template void gemm_tn_acc<double>(const double*, const double*, double*, std::size_t, std::size_t, std::size_t);

}  // namespace frugal_demo
