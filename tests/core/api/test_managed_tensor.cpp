// Managed tensors, dtype helpers and view validation.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "frugal/sdk/host.hpp"

using namespace frugal;

namespace {
int outcome_code(frugal_error* error) {
  const int code = frugal_error_code(error);
  frugal_error_destroy(error);
  return code;
}

// A CPU view of `data` with the given shape and strides (not copied).
frugal_tensor cpu_view(void* data, int32_t dtype, int32_t ndim, int64_t* shape, int64_t* strides) {
  frugal_tensor view{};
  view.struct_size = sizeof(view);
  view.data = data;
  view.dtype = dtype;
  view.ndim = ndim;
  view.device = {FRUGAL_DEVICE_CPU, 0};
  view.shape = shape;
  view.strides = strides;
  return view;
}
}  // namespace

TEST_CASE("dtype sizes and names") {
  const struct {
    int32_t dtype;
    int32_t bits;
    const char* name;
  } cases[] = {{FRUGAL_DTYPE_FLOAT32, 32, "float32"},
               {FRUGAL_DTYPE_FLOAT16, 16, "float16"},
               {FRUGAL_DTYPE_BFLOAT16, 16, "bfloat16"},
               {FRUGAL_DTYPE_FLOAT64, 64, "float64"},
               {FRUGAL_DTYPE_FLOAT8_E4M3FN, 8, "float8_e4m3fn"},
               {FRUGAL_DTYPE_FLOAT8_E5M2, 8, "float8_e5m2"},
               {FRUGAL_DTYPE_FLOAT8_E8M0FNU, 8, "float8_e8m0fnu"},
               {FRUGAL_DTYPE_INT8, 8, "int8"},
               {FRUGAL_DTYPE_UINT8, 8, "uint8"},
               {FRUGAL_DTYPE_INT16, 16, "int16"},
               {FRUGAL_DTYPE_INT32, 32, "int32"},
               {FRUGAL_DTYPE_INT64, 64, "int64"},
               {FRUGAL_DTYPE_BOOL, 8, "bool"}};
  for (const auto& c : cases) {
    CHECK(frugal_dtype_bits(c.dtype) == c.bits);
    CHECK(std::string(frugal_dtype_name(c.dtype)) == c.name);
  }
  CHECK(frugal_dtype_bits(0) == 0);
  CHECK(std::string(frugal_dtype_name(99)) == "unknown");
}

TEST_CASE("alloc gives a zeroed, aligned, row-major CPU tensor") {
  const int64_t shape[] = {3, 4, 5};
  frugal_managed_tensor* raw = nullptr;
  REQUIRE(frugal_managed_tensor_alloc(FRUGAL_DTYPE_BFLOAT16, 3, shape, &raw) == nullptr);
  host::ManagedTensorPtr tensor(raw);
  const frugal_tensor* view = frugal_managed_tensor_view(tensor.get());
  CHECK(view->struct_size == sizeof(frugal_tensor));
  CHECK(view->device.type == FRUGAL_DEVICE_CPU);
  CHECK(reinterpret_cast<uintptr_t>(view->data) % 64 == 0);
  CHECK(view->strides[0] == 20);
  CHECK(view->strides[1] == 5);
  CHECK(view->strides[2] == 1);
  const auto* bytes = static_cast<const unsigned char*>(view->data);
  for (int i = 0; i < 3 * 4 * 5 * 2; ++i) REQUIRE(bytes[i] == 0);
  CHECK(frugal_tensor_validate(view) == nullptr);
}

TEST_CASE("wrap copies shape and strides and runs release exactly once") {
  float data[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[] = {2, 3};
  int64_t strides[] = {1, 2};  // column-major view
  const frugal_tensor view = cpu_view(data, FRUGAL_DTYPE_FLOAT32, 2, shape, strides);
  int released = 0;
  frugal_managed_tensor* raw = nullptr;
  REQUIRE(frugal_managed_tensor_wrap(
              &view, [](void* count) { ++*static_cast<int*>(count); }, &released, &raw) == nullptr);
  shape[0] = 100;  // the managed tensor kept its own copy
  strides[1] = 100;
  const frugal_tensor* managed = frugal_managed_tensor_view(raw);
  CHECK(managed->data == data);
  CHECK(managed->shape[0] == 2);
  CHECK(managed->strides[1] == 2);
  CHECK(released == 0);
  frugal_managed_tensor_destroy(raw);
  CHECK(released == 1);
}

TEST_CASE("malformed views are rejected with the field named") {
  int64_t shape[] = {2, -1};
  frugal_tensor view{};
  view.struct_size = sizeof(view);
  view.dtype = FRUGAL_DTYPE_FLOAT32;
  view.ndim = 2;
  view.device = {FRUGAL_DEVICE_CPU, 0};
  view.shape = shape;
  frugal_error* error = frugal_tensor_validate(&view);
  CHECK(std::string(frugal_error_message(error)).find("shape[1] is negative") != std::string::npos);
  frugal_error_destroy(error);
  shape[1] = 2;
  view.dtype = 77;
  CHECK(outcome_code(frugal_tensor_validate(&view)) == FRUGAL_ERR_INVALID_ARGUMENT);
  view.dtype = FRUGAL_DTYPE_FLOAT32;
  view.device.type = 9;
  CHECK(outcome_code(frugal_tensor_validate(&view)) == FRUGAL_ERR_INVALID_ARGUMENT);
  view.device.type = FRUGAL_DEVICE_CUDA;
  CHECK(frugal_tensor_validate(&view) == nullptr);
  view.ndim = FRUGAL_TENSOR_MAX_NDIM + 1;
  CHECK(outcome_code(frugal_tensor_validate(&view)) == FRUGAL_ERR_INVALID_ARGUMENT);
  view.ndim = 2;
  view.shape = nullptr;
  CHECK(outcome_code(frugal_tensor_validate(&view)) == FRUGAL_ERR_INVALID_ARGUMENT);
  view.shape = shape;
  view.struct_size = 16;
  CHECK(outcome_code(frugal_tensor_validate(&view)) == FRUGAL_ERR_ABI_MISMATCH);
  int64_t huge[] = {INT64_MAX / 2, 3};
  view.struct_size = sizeof(view);
  view.shape = huge;
  CHECK(outcome_code(frugal_tensor_validate(&view)) == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome_code(frugal_tensor_validate(nullptr)) == FRUGAL_ERR_INVALID_ARGUMENT);
  frugal_managed_tensor* out = nullptr;
  CHECK(outcome_code(frugal_managed_tensor_alloc(55, 0, nullptr, &out)) == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(out == nullptr);
}

TEST_CASE("a zero extent next to huge ones: strides that would overflow are refused naming the shape") {
  // Row-major strides count a zero extent as 1 (as PyTorch and NumPy do), so
  // {0, 2^62, 4} needs a stride of 2^64: signed overflow before the check.
  const int64_t huge[] = {0, int64_t{1} << 62, 4};
  frugal_managed_tensor* out = nullptr;
  frugal_error* error = frugal_managed_tensor_alloc(FRUGAL_DTYPE_FLOAT32, 3, huge, &out);
  REQUIRE(error != nullptr);
  const std::string message = frugal_error_message(error);
  INFO(message);
  CHECK(frugal_error_code(error) == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(message.find("frugal_managed_tensor_alloc") != std::string::npos);
  CHECK(message.find("[0, 4611686018427387904, 4]") != std::string::npos);
  CHECK(message.find("overflow int64") != std::string::npos);
  frugal_error_destroy(error);
  CHECK(out == nullptr);

  // The largest shape of this form whose strides fit is still a valid empty tensor.
  const int64_t fits[] = {0, int64_t{1} << 60, 4};
  REQUIRE(frugal_managed_tensor_alloc(FRUGAL_DTYPE_FLOAT32, 3, fits, &out) == nullptr);
  host::ManagedTensorPtr empty(out);
  const frugal_tensor* view = frugal_managed_tensor_view(empty.get());
  CHECK(view->strides[0] == int64_t{1} << 62);
  CHECK(view->strides[1] == 4);
  CHECK(view->strides[2] == 1);
  CHECK(view->data == nullptr);
  CHECK(frugal_tensor_validate(view) == nullptr);
}

TEST_CASE("views whose strides reach past int64 element offsets are refused") {
  float data[4] = {};
  int64_t shape[] = {2, 2};
  int64_t strides[] = {INT64_MAX, 1};  // element [1][1] sits at INT64_MAX + 1
  const frugal_tensor view = cpu_view(data, FRUGAL_DTYPE_FLOAT32, 2, shape, strides);
  frugal_error* error = frugal_tensor_validate(&view);
  REQUIRE(error != nullptr);
  CHECK(frugal_error_code(error) == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(std::string(frugal_error_message(error)).find("strides [9223372036854775807, 1]") != std::string::npos);
  frugal_error_destroy(error);
  strides[0] = INT64_MIN;  // |INT64_MIN| itself overflows
  CHECK(outcome_code(frugal_tensor_validate(&view)) == FRUGAL_ERR_INVALID_ARGUMENT);
  strides[0] = -2;  // negative strides are fine (DLPack allows them)
  CHECK(frugal_tensor_validate(&view) == nullptr);
  shape[0] = 0;  // no element: the strides address nothing
  strides[0] = INT64_MAX;
  CHECK(frugal_tensor_validate(&view) == nullptr);
}
