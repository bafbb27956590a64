// frugal/sdk/tensor_view.hpp — the 2-D view plugins read their tensors
// through (MatrixView<T>), and matrix_view(), which checks a frugal_tensor
// a caller handed to a plugin and gives that typed row-major view of it, or
// a PluginError (FRUGAL_ERR_INVALID_ARGUMENT) naming the tensor and what
// does not match.
//
//   const auto x = frugal::sdk::matrix_view<const float>(args.input, "input", FRUGAL_DTYPE_FLOAT32);
//   for (int64_t r = 0; r < x.rows(); ++r) for (float v : x.row(r)) ...
//
// The tensor may come from a producer built against an older or newer
// ABI minor: read_tensor copies the fields inside its struct_size and
// leaves the later ones NULL. Kind adapters whose core already normalised
// the tensors (quantizer, router) do not need matrix_view's checks: they
// build the MatrixView from the normalised fields directly (a typed one,
// or MatrixView<void> with the dtype beside it when the element type is
// chosen at run time). The span constructor gives the same view over a
// plugin's own compact buffers (its algorithms' entry points and tests).
// Header-only; depends on the ABI headers and the standard library only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include "frugal/sdk/instance_slots.hpp"
#include "frugal/sdk/plugin_support.hpp"
#include "frugal/tensor.h"

namespace frugal::sdk {

// Bytes per element of a frugal dtype; 0 for a value that is none.
constexpr std::size_t dtype_size(int32_t dtype) {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT64:
    case FRUGAL_DTYPE_INT64: return 8;
    case FRUGAL_DTYPE_FLOAT32:
    case FRUGAL_DTYPE_INT32: return 4;
    case FRUGAL_DTYPE_FLOAT16:
    case FRUGAL_DTYPE_BFLOAT16:
    case FRUGAL_DTYPE_INT16: return 2;
    case FRUGAL_DTYPE_FLOAT8_E4M3FN:
    case FRUGAL_DTYPE_FLOAT8_E5M2:
    case FRUGAL_DTYPE_FLOAT8_E8M0FNU:
    case FRUGAL_DTYPE_INT8:
    case FRUGAL_DTYPE_UINT8:
    case FRUGAL_DTYPE_BOOL: return 1;
    default: return 0;
  }
}

// Stable lower-case name of a dtype, for messages; "unknown" for a value
// that is none.
constexpr const char* dtype_name(int32_t dtype) {
  constexpr const char* kNames[] = {"unknown",       "float32",     "float16",        "bfloat16", "float64",
                                    "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "int8",     "uint8",
                                    "int16",         "int32",       "int64",          "bool"};
  return dtype >= 1 && dtype <= FRUGAL_DTYPE_BOOL ? kNames[dtype] : kNames[0];
}

// Name of a device type, for messages.
constexpr const char* device_type_name(int32_t type) {
  switch (type) {
    case FRUGAL_DEVICE_CPU: return "cpu";
    case FRUGAL_DEVICE_CUDA: return "cuda";
    case FRUGAL_DEVICE_CUDA_PINNED: return "cuda_pinned";
    default: return "unknown";
  }
}

// A copy of *tensor with struct_size set to this header's size and the
// fields past the producer's struct_size NULL. NULL is INVALID_ARGUMENT, a
// struct_size that does not reach `strides` (FRUGAL_TENSOR_MIN_SIZE)
// ABI_MISMATCH, as for every argument struct; `what` names the tensor
// ("input", "weights", ...).
inline frugal_tensor read_tensor(const frugal_tensor* tensor, const std::string& what) {
  return read_sized_args(tensor, FRUGAL_TENSOR_MIN_SIZE, ("tensor '" + what + "'").c_str());
}

// What a plugin expects of a 2-D tensor.
struct MatrixRequirements {
  int32_t dtype;                            // one of frugal_dtype_values
  int32_t device_type = FRUGAL_DEVICE_CPU;  // one of frugal_device_type_values
};

namespace tensor_view_detail {

// A view of U converts to one of T as U* converts to T*, minus the
// derived-to-base step (rows of Derived are not rows of Base).
template <typename U, typename T>
concept converts_to = !std::is_same_v<U, T> && std::is_convertible_v<U*, T*> &&
                      (std::is_void_v<T> || std::is_same_v<std::remove_cv_t<U>, std::remove_cv_t<T>>);

// An erased view (T is void or const void) may be read as U, a real
// element type of the same constness.
template <typename U, typename T>
concept erased_as = std::is_void_v<T> && !std::is_void_v<U> && std::is_convertible_v<U*, T*> &&
                    std::is_const_v<U> == std::is_const_v<T>;

}  // namespace tensor_view_detail

// A [rows, cols] view whose rows are contiguous (row-major, the last
// stride 1) and `row_stride` elements apart: the one 2-D view the plugins
// read their tensors through. T is the element type as the plugin reads it
// (float, const float, uint16_t for bf16 bits, ...), or void / const void
// for type-erased data whose dtype the caller keeps beside the view (an op
// taking fp32, bf16 or fp16 input; see as<U>()). Does not own the memory;
// valid as long as the memory it came from. On a CUDA tensor the pointers
// are device pointers: pass them on, never read them.
//
// Conversions follow the pointer ones: MatrixView<float> converts to
// MatrixView<const float>, MatrixView<void> and MatrixView<const void>,
// never back (use as<U>() on an erased view).
template <typename T>
class MatrixView {
 public:
  using element_type = T;

  // No rows, no columns, no data.
  MatrixView() = default;

  MatrixView(T* data, int64_t rows, int64_t cols, int64_t row_stride)
      : data_(data), rows_(rows), cols_(cols), row_stride_(row_stride) {}

  // The compact rows x cols matrix that is exactly `data`; throws
  // PluginError (FRUGAL_ERR_INVALID_ARGUMENT) for a negative extent or a
  // size that is not rows * cols (checked without the product wrapping).
  MatrixView(std::span<T> data, int64_t rows, int64_t cols) requires(!std::is_void_v<T>)
      : MatrixView(data.data(), rows, cols, cols) {
    check_compact(data.size(), rows, cols);
  }

  template <tensor_view_detail::converts_to<T> U>
  MatrixView(const MatrixView<U>& other)  // implicit, as U* converts to T*
      : MatrixView(other.data(), other.rows(), other.cols(), other.row_stride()) {}

  [[nodiscard]] int64_t rows() const noexcept { return rows_; }
  [[nodiscard]] int64_t cols() const noexcept { return cols_; }
  // Elements (not bytes) from the start of one row to the next.
  [[nodiscard]] int64_t row_stride() const noexcept { return row_stride_; }
  [[nodiscard]] T* data() const noexcept { return data_; }
  // Whether the rows follow each other with no gap, so the elements are
  // one run of rows * cols (a single row always is).
  [[nodiscard]] bool contiguous() const noexcept { return rows_ <= 1 || row_stride_ == cols_; }

  [[nodiscard]] std::span<T> row(int64_t r) const requires(!std::is_void_v<T>) {
    check_index(r, rows_, "row");
    return std::span<T>(data_ + r * row_stride_, static_cast<std::size_t>(cols_));
  }

  [[nodiscard]] std::add_lvalue_reference_t<T> at(int64_t r, int64_t c) const requires(!std::is_void_v<T>) {
    check_index(r, rows_, "row");
    check_index(c, cols_, "column");
    return data_[r * row_stride_ + c];
  }

  // An erased view read as elements of U: the same rows, columns and
  // stride (in elements of U). The caller vouches, from the dtype it keeps,
  // that the data are U's; a const view gives only const U.
  template <tensor_view_detail::erased_as<T> U>
  [[nodiscard]] MatrixView<U> as() const noexcept {
    return MatrixView<U>(static_cast<U*>(data_), rows_, cols_, row_stride_);
  }

 private:
  static void check_index(int64_t index, int64_t extent, const char* what) {
    if (index < 0 || index >= extent) {
      throw PluginError(FRUGAL_ERR_OUT_OF_RANGE, std::string(what) + " " + std::to_string(index) + " is outside [0, " +
                                                     std::to_string(extent) + ")");
    }
  }

  // The message is built only on failure: views are made per call.
  static void check_compact(std::size_t size, int64_t rows, int64_t cols) {
    const auto shape = [&] { return "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]"; };
    if (rows < 0 || cols < 0)
      throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "MatrixView: shape " + shape() + " is negative");
    const auto r = static_cast<uint64_t>(rows);
    const auto c = static_cast<uint64_t>(cols);
    if ((c != 0 && r > size / c) || r * c != size) {
      throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT,
                        "MatrixView: " + std::to_string(size) + " elements are not a compact " + shape() + " matrix");
    }
  }

  T* data_ = nullptr;
  int64_t rows_ = 0;
  int64_t cols_ = 0;
  int64_t row_stride_ = 0;
};

namespace tensor_view_detail {

[[noreturn]] inline void refuse(const std::string& what, const std::string& why) {
  throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "tensor '" + what + "': " + why);
}

// The checks of matrix_view that do not depend on T.
inline void check_matrix(const frugal_tensor& t, const std::string& what, const MatrixRequirements& need,
                         std::size_t element_size) {
  if (dtype_size(need.dtype) != element_size) {
    throw PluginError(FRUGAL_ERR_INTERNAL, "tensor '" + what + "': the plugin reads elements of " +
                                               std::to_string(element_size) + " bytes as dtype " +
                                               dtype_name(need.dtype));
  }
  if (t.dtype != need.dtype)
    refuse(what, std::string("dtype is ") + dtype_name(t.dtype) + " (" + std::to_string(t.dtype) + "); expected " +
                     dtype_name(need.dtype));
  if (t.ndim != 2) refuse(what, "ndim is " + std::to_string(t.ndim) + "; expected 2");
  if (t.device.type != need.device_type) {
    refuse(what, std::string("device is ") + device_type_name(t.device.type) + "; expected " +
                     device_type_name(need.device_type));
  }
  if (t.shape == nullptr) refuse(what, "shape is NULL");
  if (t.shape[0] < 0 || t.shape[1] < 0) {
    refuse(what,
           "shape [" + std::to_string(t.shape[0]) + ", " + std::to_string(t.shape[1]) + "] has a negative extent");
  }
  if (t.byte_offset % element_size != 0) {
    refuse(what, "byte_offset " + std::to_string(t.byte_offset) + " is not a multiple of the element size " +
                     std::to_string(element_size));
  }
}

}  // namespace tensor_view_detail

// The row-major [rows, cols] view of `tensor` as elements of T, after
// checking its struct_size, dtype, ndim (2), device type, shape and
// strides (NULL: compact; otherwise strides[1] == 1 and rows at least
// cols apart, so no two rows overlap). Throws PluginError naming `what`.
template <typename T>
MatrixView<T> matrix_view(const frugal_tensor* tensor, const std::string& what, MatrixRequirements need) {
  namespace detail = tensor_view_detail;
  const frugal_tensor t = read_tensor(tensor, what);
  detail::check_matrix(t, what, need, sizeof(T));
  const int64_t rows = t.shape[0];
  const int64_t cols = t.shape[1];
  int64_t row_stride = cols;
  if (t.strides != nullptr) {
    // A size-1 dimension's stride never moves the address, so any is fine.
    if (t.strides[1] != 1 && cols > 1)
      detail::refuse(what, "strides[1] is " + std::to_string(t.strides[1]) + "; rows must be contiguous (1)");
    row_stride = t.strides[0];
    if (rows > 1 && row_stride < cols) {
      detail::refuse(what, "strides[0] is " + std::to_string(row_stride) + "; rows of " + std::to_string(cols) +
                               " elements need at least " + std::to_string(cols));
    }
  }
  if (rows > 0 && cols > 0 && t.data == nullptr) detail::refuse(what, "data is NULL but the tensor has elements");
  using Byte = std::conditional_t<std::is_const_v<T>, const std::byte, std::byte>;
  Byte* base = t.data == nullptr ? nullptr : static_cast<Byte*>(t.data) + t.byte_offset;
  if (reinterpret_cast<std::uintptr_t>(base) % alignof(T) != 0)
    detail::refuse(what, "data + byte_offset is not aligned to " + std::to_string(alignof(T)) + " bytes");
  return MatrixView<T>(reinterpret_cast<T*>(base), rows, cols, row_stride);
}

}  // namespace frugal::sdk
