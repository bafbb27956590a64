// DLPack exchange: zero-copy round trips in both struct versions, the
// deleter running exactly once, and refusals that still release the input.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "frugal/sdk/host.hpp"

using namespace frugal;

namespace {

int g_deleted = 0;

// A capsule as another framework (numpy, torch) would hand us one.
struct ForeignVersioned {
  frugal_dlpack_managed_tensor_versioned capsule{};
  std::vector<float> storage;
  std::vector<int64_t> shape, strides;
};

frugal_dlpack_managed_tensor_versioned* foreign_versioned(uint32_t major, frugal_dlpack_dtype dtype, bool null_strides,
                                                          uint64_t flags) {
  auto* f = new ForeignVersioned();
  f->storage.assign(24, 1.5f);
  f->shape = {2, 3, 4};
  f->strides = {12, 4, 1};
  auto& c = f->capsule;
  c.version = {major, 3};
  c.manager_ctx = f;
  c.deleter = [](frugal_dlpack_managed_tensor_versioned* self) {
    ++g_deleted;
    delete static_cast<ForeignVersioned*>(self->manager_ctx);
  };
  c.flags = flags;
  c.dl_tensor.data = f->storage.data();
  c.dl_tensor.device = {1, 0};
  c.dl_tensor.ndim = 3;
  c.dl_tensor.dtype = dtype;
  c.dl_tensor.shape = f->shape.data();
  c.dl_tensor.strides = null_strides ? nullptr : f->strides.data();
  c.dl_tensor.byte_offset = 8;
  return &c;
}

constexpr frugal_dlpack_dtype kFloat32{FRUGAL_DLPACK_FLOAT, 32, 1};

host::ManagedTensorPtr wrapped_buffer(std::vector<double>& buffer, int* released) {
  int64_t shape[] = {4, 5};
  int64_t strides[] = {1, 4};
  frugal_tensor view{};
  view.struct_size = sizeof(view);
  view.data = buffer.data();
  view.byte_offset = 0;
  view.dtype = FRUGAL_DTYPE_FLOAT64;
  view.ndim = 2;
  view.device = {FRUGAL_DEVICE_CPU, 0};
  view.shape = shape;
  view.strides = strides;
  frugal_managed_tensor* raw = nullptr;
  host::check(frugal_managed_tensor_wrap(
      &view, [](void* n) { ++*static_cast<int*>(n); }, released, &raw));
  return host::ManagedTensorPtr(raw);
}

void check_same_view(const frugal_tensor* a, const frugal_dlpack_tensor& b) {
  CHECK(a->data == b.data);
  CHECK(a->byte_offset == b.byte_offset);
  CHECK(a->ndim == b.ndim);
  CHECK(a->device.type == b.device.device_type);
  for (int32_t i = 0; i < a->ndim; ++i) {
    CHECK(a->shape[i] == b.shape[i]);
    CHECK(a->strides[i] == b.strides[i]);
  }
}

}  // namespace

TEST_CASE("versioned export then import keeps pointer, shape, strides, dtype; the deleter runs once") {
  std::vector<double> buffer(20, 0.25);
  int released = 0;
  auto tensor = wrapped_buffer(buffer, &released);

  frugal_dlpack_managed_tensor_versioned* capsule = nullptr;
  REQUIRE(frugal_managed_tensor_to_dlpack_versioned(tensor.get(), &capsule) == nullptr);
  tensor.release();  // consumed by the export
  CHECK(capsule->version.major == 1);
  CHECK(capsule->flags == 0);
  CHECK(capsule->dl_tensor.dtype.code == FRUGAL_DLPACK_FLOAT);
  CHECK(capsule->dl_tensor.dtype.bits == 64);
  CHECK(capsule->dl_tensor.dtype.lanes == 1);
  CHECK(capsule->dl_tensor.data == buffer.data());
  CHECK(capsule->dl_tensor.strides[1] == 4);

  frugal_managed_tensor* imported = nullptr;
  REQUIRE(frugal_managed_tensor_from_dlpack_versioned(capsule, &imported) == nullptr);
  const frugal_tensor* view = frugal_managed_tensor_view(imported);
  CHECK(view->data == buffer.data());
  CHECK(view->dtype == FRUGAL_DTYPE_FLOAT64);
  CHECK(view->shape[0] == 4);
  CHECK(view->shape[1] == 5);
  CHECK(view->strides[0] == 1);
  CHECK(view->strides[1] == 4);
  CHECK(released == 0);
  frugal_managed_tensor_destroy(imported);
  CHECK(released == 1);
}

TEST_CASE("legacy export then import round trips the same way") {
  std::vector<double> buffer(20, 0.5);
  int released = 0;
  auto tensor = wrapped_buffer(buffer, &released);
  frugal_dlpack_managed_tensor* capsule = nullptr;
  REQUIRE(frugal_managed_tensor_to_dlpack(tensor.get(), &capsule) == nullptr);
  tensor.release();
  frugal_managed_tensor* imported = nullptr;
  REQUIRE(frugal_managed_tensor_from_dlpack(capsule, &imported) == nullptr);
  CHECK(frugal_managed_tensor_view(imported)->data == buffer.data());
  CHECK(frugal_managed_tensor_view(imported)->strides[1] == 4);
  frugal_managed_tensor_destroy(imported);
  CHECK(released == 1);
}

TEST_CASE("a foreign capsule is imported without a copy and can be re-exported") {
  g_deleted = 0;
  auto* capsule = foreign_versioned(1, kFloat32, false, 0);
  const frugal_dlpack_tensor original = capsule->dl_tensor;
  frugal_managed_tensor* imported = nullptr;
  REQUIRE(frugal_managed_tensor_from_dlpack_versioned(capsule, &imported) == nullptr);
  check_same_view(frugal_managed_tensor_view(imported), original);
  CHECK(frugal_managed_tensor_view(imported)->dtype == FRUGAL_DTYPE_FLOAT32);

  frugal_dlpack_managed_tensor* legacy = nullptr;
  REQUIRE(frugal_managed_tensor_to_dlpack(imported, &legacy) == nullptr);
  CHECK(legacy->dl_tensor.data == original.data);
  CHECK(legacy->dl_tensor.byte_offset == 8);
  CHECK(g_deleted == 0);
  legacy->deleter(legacy);
  CHECK(g_deleted == 1);
}

TEST_CASE("NULL strides mean compact row-major") {
  g_deleted = 0;
  frugal_managed_tensor* imported = nullptr;
  REQUIRE(frugal_managed_tensor_from_dlpack_versioned(foreign_versioned(1, kFloat32, true, 0), &imported) == nullptr);
  const frugal_tensor* view = frugal_managed_tensor_view(imported);
  CHECK(view->strides[0] == 12);
  CHECK(view->strides[1] == 4);
  CHECK(view->strides[2] == 1);
  frugal_managed_tensor_destroy(imported);
  CHECK(g_deleted == 1);
}

TEST_CASE("NULL strides with a zero extent next to huge ones: refused naming the shape, released once") {
  g_deleted = 0;
  auto* capsule = foreign_versioned(1, kFloat32, true, 0);
  auto* foreign = static_cast<ForeignVersioned*>(capsule->manager_ctx);
  foreign->shape = {0, int64_t{1} << 62, 4};  // compact strides would need 2^64
  capsule->dl_tensor.shape = foreign->shape.data();
  frugal_managed_tensor* imported = nullptr;
  frugal_error* error = frugal_managed_tensor_from_dlpack_versioned(capsule, &imported);
  REQUIRE(error != nullptr);
  CHECK(frugal_error_code(error) == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(std::string(frugal_error_message(error)).find("DLPack import: shape [0, 4611686018427387904, 4]") !=
        std::string::npos);
  frugal_error_destroy(error);
  CHECK(imported == nullptr);
  CHECK(g_deleted == 1);

  // Explicit strides whose element offsets overflow: refused the same way.
  capsule = foreign_versioned(1, kFloat32, false, 0);
  foreign = static_cast<ForeignVersioned*>(capsule->manager_ctx);
  foreign->strides = {INT64_MAX, 4, 1};  // element [1][0][0] alone is at INT64_MAX
  CHECK(frugal_error_code(error = frugal_managed_tensor_from_dlpack_versioned(capsule, &imported)) ==
        FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(std::string(frugal_error_message(error)).find("strides") != std::string::npos);
  frugal_error_destroy(error);
  CHECK(g_deleted == 2);
}

TEST_CASE("refused imports still release the capsule exactly once") {
  struct Case {
    uint32_t major;
    frugal_dlpack_dtype dtype;
    const char* mention;
  };
  const Case cases[] = {
      {2, kFloat32, "DLPack version 2.3"},
      {1, {5, 64, 1}, "type code 5, 64 bits"},       // complex64
      {1, {FRUGAL_DLPACK_FLOAT, 32, 4}, "4 lanes"},  // float4 vectors
      {1, {FRUGAL_DLPACK_FLOAT, 8, 1}, "type code 2, 8 bits"},
  };
  for (const auto& c : cases) {
    g_deleted = 0;
    frugal_managed_tensor* imported = nullptr;
    frugal_error* error =
        frugal_managed_tensor_from_dlpack_versioned(foreign_versioned(c.major, c.dtype, false, 0), &imported);
    CHECK(frugal_error_code(error) == FRUGAL_ERR_UNSUPPORTED);
    CHECK(std::string(frugal_error_message(error)).find(c.mention) != std::string::npos);
    frugal_error_destroy(error);
    CHECK(imported == nullptr);
    CHECK(g_deleted == 1);
  }
}

TEST_CASE("read-only travels through versioned exchange; the legacy export refuses it") {
  g_deleted = 0;
  frugal_managed_tensor* imported = nullptr;
  REQUIRE(frugal_managed_tensor_from_dlpack_versioned(
              foreign_versioned(1, kFloat32, false, FRUGAL_DLPACK_FLAG_READ_ONLY), &imported) == nullptr);
  CHECK(frugal_managed_tensor_is_read_only(imported) == 1);
  frugal_dlpack_managed_tensor* legacy = nullptr;
  frugal_error* error = frugal_managed_tensor_to_dlpack(imported, &legacy);
  CHECK(frugal_error_code(error) == FRUGAL_ERR_UNSUPPORTED);
  frugal_error_destroy(error);
  CHECK(legacy == nullptr);
  frugal_dlpack_managed_tensor_versioned* versioned = nullptr;
  REQUIRE(frugal_managed_tensor_to_dlpack_versioned(imported, &versioned) == nullptr);
  CHECK((versioned->flags & FRUGAL_DLPACK_FLAG_READ_ONLY) != 0);
  versioned->deleter(versioned);
  CHECK(g_deleted == 1);
}

TEST_CASE("every frugal dtype maps to DLPack and back") {
  for (int32_t dtype = FRUGAL_DTYPE_FLOAT32; dtype <= FRUGAL_DTYPE_BOOL; ++dtype) {
    const int64_t shape[] = {3};
    frugal_managed_tensor* tensor = nullptr;
    REQUIRE(frugal_managed_tensor_alloc(dtype, 1, shape, &tensor) == nullptr);
    frugal_dlpack_managed_tensor_versioned* capsule = nullptr;
    REQUIRE(frugal_managed_tensor_to_dlpack_versioned(tensor, &capsule) == nullptr);
    CHECK(capsule->dl_tensor.dtype.bits == frugal_dtype_bits(dtype));
    frugal_managed_tensor* back = nullptr;
    REQUIRE(frugal_managed_tensor_from_dlpack_versioned(capsule, &back) == nullptr);
    INFO(frugal_dtype_name(dtype));
    CHECK(frugal_managed_tensor_view(back)->dtype == dtype);
    frugal_managed_tensor_destroy(back);
  }
}

TEST_CASE("NULL arguments: errors, and a NULL source is not dereferenced") {
  frugal_managed_tensor* out = nullptr;
  frugal_error* error = frugal_managed_tensor_from_dlpack_versioned(nullptr, &out);
  CHECK(frugal_error_code(error) == FRUGAL_ERR_INVALID_ARGUMENT);
  frugal_error_destroy(error);
  g_deleted = 0;
  error = frugal_managed_tensor_from_dlpack_versioned(foreign_versioned(1, kFloat32, false, 0), nullptr);
  CHECK(frugal_error_code(error) == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(g_deleted == 1);  // ownership was taken, so it was released
  frugal_error_destroy(error);
  frugal_dlpack_managed_tensor_versioned* capsule = nullptr;
  error = frugal_managed_tensor_to_dlpack_versioned(nullptr, &capsule);
  CHECK(frugal_error_code(error) == FRUGAL_ERR_INVALID_ARGUMENT);
  frugal_error_destroy(error);
  frugal_managed_tensor_destroy(nullptr);
  CHECK(frugal_managed_tensor_view(nullptr) == nullptr);
}
