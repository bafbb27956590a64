// sdk/tensor_view.hpp: which tensors matrix_view accepts, what the view
// reads, and the message naming the tensor and the mismatch otherwise; the
// view's own constructors, conversions and type-erased form.
#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "frugal/sdk/tensor_view.hpp"

using frugal::sdk::matrix_view;
using frugal::sdk::MatrixRequirements;
using frugal::sdk::MatrixView;
using frugal::sdk::PluginError;

namespace {

constexpr MatrixRequirements kFloatCpu{FRUGAL_DTYPE_FLOAT32};

// A [rows, cols] float tensor over `data`, compact unless strides is given.
frugal_tensor float_tensor(float* data, const int64_t* shape, const int64_t* strides = nullptr) {
  frugal_tensor t{};
  t.struct_size = sizeof(t);
  t.data = data;
  t.dtype = FRUGAL_DTYPE_FLOAT32;
  t.ndim = 2;
  t.device = {FRUGAL_DEVICE_CPU, 0};
  t.shape = shape;
  t.strides = strides;
  return t;
}

// Whether a view's rows and elements can be read, and whether it can be
// read back as elements of U.
template <class V>
concept has_rows = requires(const V& v) {
  v.row(0);
  v.at(0, 0);
};
template <class V, class U>
concept reads_as = requires(const V& v) {
  v.template as<U>();
};

// The code and message matrix_view<float> throws for `t`.
std::pair<int32_t, std::string> refusal(const frugal_tensor* t, MatrixRequirements need = kFloatCpu) {
  try {
    matrix_view<float>(t, "input", need);
  } catch (const PluginError& e) {
    return {e.code(), e.what()};
  }
  return {FRUGAL_OK, "accepted"};
}

}  // namespace

TEST_CASE("a compact float matrix reads row by row and element by element") {
  std::array<float, 6> data{1, 2, 3, 4, 5, 6};
  const int64_t shape[] = {2, 3};
  const frugal_tensor t = float_tensor(data.data(), shape);
  const auto view = matrix_view<const float>(&t, "input", kFloatCpu);
  CHECK(view.rows() == 2);
  CHECK(view.cols() == 3);
  CHECK(view.row_stride() == 3);
  CHECK(view.row(1).size() == 3);
  CHECK(view.row(1)[0] == 4.0f);
  CHECK(view.at(0, 2) == 3.0f);
  CHECK(view.at(1, 2) == 6.0f);
}

TEST_CASE("strided rows and a byte offset land on the right elements, and writes go through") {
  std::array<float, 12> data{};
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i);
  const int64_t shape[] = {2, 3};
  const int64_t strides[] = {5, 1};
  frugal_tensor t = float_tensor(data.data(), shape, strides);
  t.byte_offset = 2 * sizeof(float);
  const auto view = matrix_view<float>(&t, "input", kFloatCpu);
  CHECK(view.row_stride() == 5);
  CHECK(view.at(0, 0) == 2.0f);
  CHECK(view.at(1, 0) == 7.0f);
  CHECK(view.row(1).back() == 9.0f);
  view.at(1, 1) = -1.0f;
  CHECK(data[8] == -1.0f);
}

TEST_CASE("a producer's smaller struct is read up to its struct_size") {
  std::array<float, 2> data{7, 8};
  const int64_t shape[] = {1, 2};
  frugal_tensor t = float_tensor(data.data(), shape);
  t.struct_size = FRUGAL_TENSOR_MIN_SIZE;
  // Past the producer's struct: must not be read.
  t.quant = reinterpret_cast<const frugal_quant_meta*>(0x1);
  const frugal_tensor copy = frugal::sdk::read_tensor(&t, "input");
  CHECK(copy.struct_size == sizeof(frugal_tensor));
  CHECK(copy.quant == nullptr);
  CHECK(matrix_view<float>(&t, "input", kFloatCpu).at(0, 1) == 8.0f);
}

TEST_CASE("an empty matrix may have no data") {
  const int64_t shape[] = {0, 4};
  const frugal_tensor t = float_tensor(nullptr, shape);
  const auto view = matrix_view<float>(&t, "input", kFloatCpu);
  CHECK(view.rows() == 0);
  CHECK(view.cols() == 4);
}

TEST_CASE("tensors that do not match are refused with the tensor and the mismatch named") {
  static std::array<float, 8> data{};
  static const int64_t shape[] = {2, 3};
  static const int64_t shape3[] = {2, 3, 1};
  static const int64_t negative[] = {2, -1};
  static const int64_t column_stride[] = {6, 2};
  static const int64_t overlapping[] = {2, 1};
  const frugal_tensor good = float_tensor(data.data(), shape);

  CHECK(refusal(nullptr) == std::pair<int32_t, std::string>{FRUGAL_ERR_INVALID_ARGUMENT, "tensor 'input' is NULL"});

  frugal_tensor small = good;
  small.struct_size = 8;
  CHECK(refusal(&small) ==
        std::pair<int32_t, std::string>{FRUGAL_ERR_ABI_MISMATCH,
                                        "tensor 'input'->struct_size is 8; at least 56 bytes are required"});

  // One mismatch each, on an otherwise good tensor: all INVALID_ARGUMENT.
  const struct {
    void (*spoil)(frugal_tensor&);
    const char* message;
  } cases[] = {
      {[](frugal_tensor& t) { t.dtype = FRUGAL_DTYPE_INT32; }, "tensor 'input': dtype is int32 (11); expected float32"},
      {[](frugal_tensor& t) { t.ndim = 3, t.shape = shape3; }, "tensor 'input': ndim is 3; expected 2"},
      {[](frugal_tensor& t) {
         t.device = {FRUGAL_DEVICE_CUDA, 0};
       },
       "tensor 'input': device is cuda; expected cpu"},
      {[](frugal_tensor& t) { t.shape = nullptr; }, "tensor 'input': shape is NULL"},
      {[](frugal_tensor& t) { t.shape = negative; }, "tensor 'input': shape [2, -1] has a negative extent"},
      {[](frugal_tensor& t) { t.strides = column_stride; },
       "tensor 'input': strides[1] is 2; rows must be contiguous (1)"},
      {[](frugal_tensor& t) { t.strides = overlapping; },
       "tensor 'input': strides[0] is 2; rows of 3 elements need at least 3"},
      {[](frugal_tensor& t) { t.data = nullptr; }, "tensor 'input': data is NULL but the tensor has elements"},
      {[](frugal_tensor& t) { t.byte_offset = 2; },
       "tensor 'input': byte_offset 2 is not a multiple of the element size 4"},
      {[](frugal_tensor& t) { t.data = reinterpret_cast<std::byte*>(data.data()) + 2, t.byte_offset = 4; },
       "tensor 'input': data + byte_offset is not aligned to 4 bytes"},
  };
  for (const auto& c : cases) {
    frugal_tensor t = good;
    c.spoil(t);
    CHECK(refusal(&t) == std::pair<int32_t, std::string>{FRUGAL_ERR_INVALID_ARGUMENT, c.message});
  }

  // The device is whatever the plugin asks for.
  frugal_tensor on_gpu = good;
  on_gpu.device = {FRUGAL_DEVICE_CUDA, 0};
  CHECK(refusal(&on_gpu, {FRUGAL_DTYPE_FLOAT32, FRUGAL_DEVICE_CUDA}).first == FRUGAL_OK);
}

TEST_CASE("a plugin reading elements of the wrong size is its own bug, not the caller's") {
  std::array<float, 6> data{};
  const int64_t shape[] = {2, 3};
  const frugal_tensor t = float_tensor(data.data(), shape);
  try {
    matrix_view<double>(&t, "input", kFloatCpu);
    FAIL("doubles were read as float32");
  } catch (const PluginError& e) {
    CHECK(e.code() == FRUGAL_ERR_INTERNAL);
    CHECK(std::string(e.what()) == "tensor 'input': the plugin reads elements of 8 bytes as dtype float32");
  }
}

TEST_CASE("indices outside the view are OUT_OF_RANGE") {
  std::array<float, 6> data{};
  const int64_t shape[] = {2, 3};
  const frugal_tensor t = float_tensor(data.data(), shape);
  const auto view = matrix_view<float>(&t, "input", kFloatCpu);
  try {
    (void)view.at(1, 3);
    FAIL("column 3 of 3 was read");
  } catch (const PluginError& e) {
    CHECK(e.code() == FRUGAL_ERR_OUT_OF_RANGE);
    CHECK(std::string(e.what()) == "column 3 is outside [0, 3)");
  }
  CHECK_THROWS_WITH(view.row(-1), "row -1 is outside [0, 2)");
}

TEST_CASE("a compact span is a view only when it holds exactly rows * cols elements") {
  std::vector<float> data{1, 2, 3, 4, 5, 6};
  const MatrixView<float> view(data, 2, 3);
  CHECK(view.data() == data.data());
  CHECK(view.row_stride() == 3);
  CHECK(view.contiguous());
  CHECK(view.at(1, 0) == 4.0f);
  view.at(0, 2) = -3.0f;
  CHECK(data[2] == -3.0f);
  CHECK(MatrixView<const float>(std::span<const float>{}, 5, 0).rows() == 5);

  const auto refused = [&](int64_t rows, int64_t cols) -> std::pair<int32_t, std::string> {
    try {
      (void)MatrixView<const float>(data, rows, cols);
    } catch (const PluginError& e) {
      return {e.code(), e.what()};
    }
    return {FRUGAL_OK, "accepted"};
  };
  CHECK(refused(3, 2).first == FRUGAL_OK);
  CHECK(refused(2, 2) == std::pair<int32_t, std::string>{FRUGAL_ERR_INVALID_ARGUMENT,
                                                         "MatrixView: 6 elements are not a compact [2, 2] matrix"});
  CHECK(refused(-2, -3) ==
        std::pair<int32_t, std::string>{FRUGAL_ERR_INVALID_ARGUMENT, "MatrixView: shape [-2, -3] is negative"});
  // (2^64 + 2) / 3 rows of 9 are 3 * 2^64 + 6 elements: the product wraps
  // to exactly 6 in 64 bits and must still be refused.
  static_assert(uint64_t{6148914691236517206} * 9 == 6);
  CHECK(refused(6148914691236517206, 9).first == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(refused(int64_t{1} << 62, 4).first == FRUGAL_ERR_INVALID_ARGUMENT);
}

TEST_CASE("contiguous: one run of rows * cols elements, however the stride is set") {
  std::array<float, 12> data{};
  CHECK(MatrixView<float>(data.data(), 3, 4, 4).contiguous());
  CHECK_FALSE(MatrixView<float>(data.data(), 2, 4, 6).contiguous());
  CHECK(MatrixView<float>(data.data(), 1, 4, 6).contiguous());
  CHECK(MatrixView<float>().contiguous());
  CHECK(MatrixView<float>().data() == nullptr);
  CHECK(MatrixView<float>().rows() == 0);
}

TEST_CASE("views convert like pointers: to const and to void, and as<U> reads an erased view back") {
  std::array<uint16_t, 10> data{};
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint16_t>(100 + i);
  const MatrixView<uint16_t> typed(data.data(), 2, 3, 5);
  const MatrixView<const uint16_t> read_only = typed;
  CHECK(read_only.at(1, 2) == 107);
  const MatrixView<void> erased = typed;
  const MatrixView<const void> erased_const = erased;
  CHECK(erased.data() == static_cast<void*>(data.data()));
  CHECK(erased_const.rows() == 2);
  CHECK(erased_const.cols() == 3);
  CHECK(erased_const.row_stride() == 5);
  CHECK_FALSE(erased.contiguous());

  const MatrixView<const uint16_t> back = erased_const.as<const uint16_t>();
  CHECK(back.row(1)[0] == 105);
  const MatrixView<uint16_t> writable = erased.as<uint16_t>();
  writable.at(0, 1) = 7;
  CHECK(data[1] == 7);

  // What must not compile: dropping const, or reading elements of an erased view directly.
  static_assert(!std::is_convertible_v<MatrixView<const float>, MatrixView<float>>);
  static_assert(!std::is_convertible_v<MatrixView<const float>, MatrixView<void>>);
  static_assert(!std::is_convertible_v<MatrixView<void>, MatrixView<float>>);
  static_assert(!std::is_convertible_v<MatrixView<float>, MatrixView<double>>);
  static_assert(std::is_convertible_v<MatrixView<const float>, MatrixView<const void>>);
  static_assert(!has_rows<MatrixView<void>>);
  static_assert(has_rows<MatrixView<const float>>);
  static_assert(!reads_as<MatrixView<const void>, float>);
  static_assert(reads_as<MatrixView<const void>, const float>);
  static_assert(!reads_as<MatrixView<void>, const float>);
  static_assert(!reads_as<MatrixView<float>, float>);
}
