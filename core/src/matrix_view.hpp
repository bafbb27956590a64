// Checking a host's tensor and rewriting it into the 2-D view plugins
// receive: shape [rows, cols], explicit strides with strides[1] == 1,
// byte_offset folded into data, pinned host memory reported as CPU. The
// quantizer's and the router's tensors both cross this way (their vtable
// headers say so). Internal to libfrugal. Not frugal::sdk::MatrixView: that
// one reads a tensor inside a plugin; Matrix2D builds the frugal_tensor
// (owning its shape and strides) that the plugin then reads.
#pragma once

#include <cstdint>
#include <string>

#include "frugal/tensor.h"

namespace frugal {

// A 2-D view handed to a plugin. Not copyable: view points at shape and
// strides inside the object.
struct Matrix2D {
  frugal_tensor view{};
  int64_t shape[2]{};
  int64_t strides[2]{};

  Matrix2D() = default;
  Matrix2D(const Matrix2D&) = delete;
  Matrix2D& operator=(const Matrix2D&) = delete;

  [[nodiscard]] int64_t rows() const { return shape[0]; }
  [[nodiscard]] int64_t cols() const { return shape[1]; }
};

// Checks `tensor` (role names it in errors, e.g. "input") and fills `out`:
// at least one dimension and one element, known dtype and device, the last
// dimension contiguous, the leading ones collapsible into one row stride,
// rows that do not overlap. Leaves dtype checks to the caller.
void to_matrix(const frugal_tensor* tensor, const char* role, Matrix2D& out);

// Fails with INVALID_ARGUMENT unless `b` lives on the same device as `a`
// (CPU and pinned host memory count as one).
void require_same_device(const Matrix2D& a, const char* role_a, const Matrix2D& b, const char* role_b);

// "CPU", "CUDA pinned host", "CUDA:1", for messages.
std::string device_name(const frugal_device& device);

}  // namespace frugal
