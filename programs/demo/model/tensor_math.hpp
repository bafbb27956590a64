// Dense kernels shared by every op: row-major matrix products and a tiny
// parallel_for. Results never depend on the thread count: work is split by
// output rows, so each output element is computed by exactly one thread,
// always summing in the same order.
#pragma once

#include <cstddef>
#include <functional>

namespace frugal_demo {

// Process-wide worker count for parallel_for (default 2, clamped to >= 1).
void set_num_threads(int threads);
int num_threads();

// Calls fn(begin, end) on contiguous chunks covering [0, count), one chunk
// per thread. work_per_item (rough flops per item) decides whether threads
// are worth starting at all: tiny loops run inline on the caller.
void parallel_for(std::size_t count, std::size_t work_per_item,
                  const std::function<void(std::size_t, std::size_t)>& fn);

// C[m,n] (+)= A[m,k] * B[k,n]. i-k-j order: the inner loop runs along
// contiguous rows of B and C, which the compiler vectorizes.
template <class T>
void gemm_nn(const T* a, const T* b, T* c, std::size_t m, std::size_t k, std::size_t n, bool accumulate);

// C[m,n] (+)= A[m,k] * B[n,k]^T. B is transposed once into scratch so the
// product runs as gemm_nn (a dot-product inner loop would not vectorize
// without reassociating the sum).
template <class T>
void gemm_nt(const T* a, const T* b, T* c, std::size_t m, std::size_t k, std::size_t n, bool accumulate);

// C[m,n] += A[k,m]^T * B[k,n]: the weight-gradient product (dW += dY^T X).
template <class T>
void gemm_tn_acc(const T* a, const T* b, T* c, std::size_t m, std::size_t k, std::size_t n);

}  // namespace frugal_demo
