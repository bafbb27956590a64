// Owning tensors and zero-copy DLPack exchange (versioned and legacy).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "dtype.hpp"
#include "error.hpp"
#include "frugal/managed_tensor.h"
#include "sized_structs.hpp"

struct frugal_managed_tensor {
  frugal_tensor view{};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  bool read_only = false;
  std::function<void()> release;  // runs exactly once, in the destructor

  frugal_managed_tensor() = default;
  frugal_managed_tensor(const frugal_managed_tensor&) = delete;
  frugal_managed_tensor& operator=(const frugal_managed_tensor&) = delete;
  ~frugal_managed_tensor() {
    if (release) release();
  }
};

namespace frugal {
namespace {

constexpr size_t kTensorMinSize = FRUGAL_TENSOR_MIN_SIZE;

bool is_known_device(int32_t type) {
  return type == FRUGAL_DEVICE_CPU || type == FRUGAL_DEVICE_CUDA || type == FRUGAL_DEVICE_CUDA_PINNED;
}

// "[2, 3, 4]": shapes and strides named in errors.
std::string dims_text(int32_t ndim, const int64_t* values) {
  return fmt::format("[{}]", fmt::join(values, values + ndim, ", "));
}

// Checks ndim/shape/extents and the element count; returns the count. The
// extents' product with zero extents counted as 1 must fit int64 too, even
// for a tensor with no element: compact strides are that product
// (row_major_strides), and code sizing a tensor's rows from its inner
// extents computes it. PyTorch and NumPy refuse such shapes the same way.
int64_t checked_numel(int32_t ndim, const int64_t* shape, const char* what) {
  if (ndim < 0 || ndim > FRUGAL_TENSOR_MAX_NDIM)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: ndim {} is outside 0..{}", what, ndim, FRUGAL_TENSOR_MAX_NDIM);
  if (ndim > 0 && shape == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: shape is NULL but ndim is {}", what, ndim);
  int64_t numel = 1, nonzero_product = 1;
  for (int32_t i = 0; i < ndim; ++i) {
    if (shape[i] < 0) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: shape[{}] is negative ({})", what, i, shape[i]);
    if (__builtin_mul_overflow(numel, shape[i], &numel))
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: element count of shape {} overflows int64", what, dims_text(ndim, shape));
    if (__builtin_mul_overflow(nonzero_product, shape[i] > 0 ? shape[i] : 1, &nonzero_product))
      fail(FRUGAL_ERR_INVALID_ARGUMENT,
           "{}: shape {} has no element, but its row-major strides (zero extents counted as 1) overflow int64", what,
           dims_text(ndim, shape));
  }
  return numel;
}

// Checks that every element's offset, sum(strides[i] * index[i]), fits
// int64 for a tensor with elements (`strides` not NULL): consumers compute
// it. Negative strides are allowed (DLPack has them).
void check_strides(int32_t ndim, const int64_t* shape, const int64_t* strides, int64_t numel, const char* what) {
  if (numel == 0 || strides == nullptr) return;  // no element: the strides address nothing
  int64_t reach = 0;
  for (int32_t i = 0; i < ndim; ++i) {
    int64_t step = 0;
    if (strides[i] == INT64_MIN ||
        __builtin_mul_overflow(strides[i] < 0 ? -strides[i] : strides[i], shape[i] - 1, &step) ||
        __builtin_add_overflow(reach, step, &reach))
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: strides {} for shape {} put elements past int64 offsets", what,
           dims_text(ndim, strides), dims_text(ndim, shape));
  }
}

// Compact row-major strides; checked_numel has made sure they fit.
std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i] > 0 ? shape[i] : 1;
  }
  return strides;
}

// Fills a managed tensor's own copies of shape/strides and points the view at them.
std::unique_ptr<frugal_managed_tensor> make_managed(void* data, uint64_t byte_offset, int32_t dtype,
                                                    frugal_device device, int32_t ndim, const int64_t* shape,
                                                    const int64_t* strides) {
  auto managed = std::make_unique<frugal_managed_tensor>();
  managed->shape.assign(shape, shape + ndim);
  managed->strides =
      strides != nullptr ? std::vector<int64_t>(strides, strides + ndim) : row_major_strides(managed->shape);
  auto& v = managed->view;
  v.struct_size = sizeof(frugal_tensor);
  v.data = data;
  v.byte_offset = byte_offset;
  v.dtype = dtype;
  v.ndim = ndim;
  v.device = device;
  v.shape = managed->shape.data();
  v.strides = managed->strides.data();
  return managed;
}

void validate_view(const frugal_tensor* tensor) {
  require_non_null(tensor, "frugal_tensor_validate", "tensor");
  if (tensor->struct_size < kTensorMinSize)
    fail(FRUGAL_ERR_ABI_MISMATCH, "tensor: struct_size is {} bytes; at least {} are required", tensor->struct_size,
         kTensorMinSize);
  const frugal_tensor t = read_sized(tensor);
  if (find_dtype(t.dtype) == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "tensor: unknown dtype {}", t.dtype);
  if (!is_known_device(t.device.type))
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "tensor: unknown device type {}", t.device.type);
  check_strides(t.ndim, t.shape, t.strides, checked_numel(t.ndim, t.shape, "tensor"), "tensor");
}

// Maps a DLPack tensor to a managed tensor whose release calls `release`.
std::unique_ptr<frugal_managed_tensor> import_dl_tensor(const frugal_dlpack_tensor& dl) {
  const auto dtype = dtype_from_dlpack(dl.dtype);
  if (!dtype)
    fail(FRUGAL_ERR_UNSUPPORTED, "DLPack import: no frugal dtype for type code {}, {} bits, {} lanes", dl.dtype.code,
         dl.dtype.bits, dl.dtype.lanes);
  if (!is_known_device(dl.device.device_type))
    fail(FRUGAL_ERR_UNSUPPORTED, "DLPack import: device type {} is not CPU (1), CUDA (2) or CUDA host (3)",
         dl.device.device_type);
  check_strides(dl.ndim, dl.shape, dl.strides, checked_numel(dl.ndim, dl.shape, "DLPack import"), "DLPack import");
  return make_managed(dl.data, dl.byte_offset, *dtype, frugal_device{dl.device.device_type, dl.device.device_id},
                      dl.ndim, dl.shape, dl.strides);
}

frugal_dlpack_tensor to_dl_tensor(frugal_managed_tensor* managed) {
  const auto& v = managed->view;
  frugal_dlpack_tensor dl{};
  dl.data = v.data;
  dl.device = {v.device.type, v.device.id};
  dl.ndim = v.ndim;
  dl.dtype = {find_dtype(v.dtype)->dlpack_code, find_dtype(v.dtype)->bits, 1};
  dl.shape = managed->shape.data();
  dl.strides = managed->strides.data();
  dl.byte_offset = v.byte_offset;
  return dl;
}

// Deleters of the capsules we export: manager_ctx is the managed tensor.
void delete_exported_versioned(frugal_dlpack_managed_tensor_versioned* self) {
  delete static_cast<frugal_managed_tensor*>(self->manager_ctx);
  delete self;
}

void delete_exported_legacy(frugal_dlpack_managed_tensor* self) {
  delete static_cast<frugal_managed_tensor*>(self->manager_ctx);
  delete self;
}

}  // namespace
}  // namespace frugal

using frugal::guard;
using frugal::require_non_null;

extern "C" {

FRUGAL_API frugal_error* frugal_tensor_validate(const frugal_tensor* tensor) {
  return guard("frugal_tensor_validate", [&] { frugal::validate_view(tensor); });
}

FRUGAL_API frugal_error* frugal_managed_tensor_alloc(int32_t dtype, int32_t ndim, const int64_t* shape,
                                                     frugal_managed_tensor** out) {
  return guard("frugal_managed_tensor_alloc", [&] {
    require_non_null(out, "frugal_managed_tensor_alloc", "out");
    const auto* info = frugal::find_dtype(dtype);
    if (info == nullptr)
      frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "frugal_managed_tensor_alloc: unknown dtype {}", dtype);
    const int64_t numel = frugal::checked_numel(ndim, shape, "frugal_managed_tensor_alloc");
    int64_t bytes = 0;
    if (__builtin_mul_overflow(numel, static_cast<int64_t>(info->bits / 8), &bytes))
      frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "frugal_managed_tensor_alloc: byte size overflows int64");
    void* data = nullptr;
    if (bytes > 0) {
      if (posix_memalign(&data, 64, static_cast<size_t>(bytes)) != 0)
        frugal::fail(FRUGAL_ERR_OUT_OF_MEMORY, "frugal_managed_tensor_alloc: cannot allocate {} bytes", bytes);
      std::memset(data, 0, static_cast<size_t>(bytes));
    }
    auto managed = frugal::make_managed(data, 0, dtype, frugal_device{FRUGAL_DEVICE_CPU, 0}, ndim, shape, nullptr);
    managed->release = [data] { std::free(data); };
    *out = managed.release();
  });
}

FRUGAL_API frugal_error* frugal_managed_tensor_wrap(const frugal_tensor* view, frugal_release_fn release,
                                                    void* user_data, frugal_managed_tensor** out) {
  return guard("frugal_managed_tensor_wrap", [&] {
    require_non_null(out, "frugal_managed_tensor_wrap", "out");
    frugal::validate_view(view);
    const frugal_tensor v = frugal::read_sized(view);
    auto managed = frugal::make_managed(v.data, v.byte_offset, v.dtype, v.device, v.ndim, v.shape, v.strides);
    managed->view.quant = v.quant;
    managed->view.ext = v.ext;
    if (release != nullptr) managed->release = [release, user_data] { release(user_data); };
    *out = managed.release();
  });
}

FRUGAL_API const frugal_tensor* frugal_managed_tensor_view(const frugal_managed_tensor* tensor) {
  return tensor != nullptr ? &tensor->view : nullptr;
}

FRUGAL_API void frugal_managed_tensor_destroy(frugal_managed_tensor* tensor) { delete tensor; }

FRUGAL_API int32_t frugal_managed_tensor_is_read_only(const frugal_managed_tensor* tensor) {
  return tensor != nullptr && tensor->read_only ? 1 : 0;
}

FRUGAL_API frugal_error* frugal_managed_tensor_from_dlpack_versioned(frugal_dlpack_managed_tensor_versioned* src,
                                                                     frugal_managed_tensor** out) {
  // Ownership of src is taken first, so every exit path (even a throw) calls its deleter once.
  auto release = [src] {
    if (src != nullptr && src->deleter != nullptr) src->deleter(src);
  };
  return guard("frugal_managed_tensor_from_dlpack_versioned", [&] {
    std::unique_ptr<void, std::function<void(void*)>> owner(src, [&](void*) { release(); });
    require_non_null(src, "frugal_managed_tensor_from_dlpack_versioned", "src");
    require_non_null(out, "frugal_managed_tensor_from_dlpack_versioned", "out");
    if (src->version.major != FRUGAL_DLPACK_MAJOR_VERSION)
      frugal::fail(FRUGAL_ERR_UNSUPPORTED, "DLPack import: tensor has DLPack version {}.{}; frugal reads major {}",
                   src->version.major, src->version.minor, FRUGAL_DLPACK_MAJOR_VERSION);
    auto managed = frugal::import_dl_tensor(src->dl_tensor);
    managed->read_only = (src->flags & FRUGAL_DLPACK_FLAG_READ_ONLY) != 0;
    owner.release();
    managed->release = release;
    *out = managed.release();
  });
}

FRUGAL_API frugal_error* frugal_managed_tensor_from_dlpack(frugal_dlpack_managed_tensor* src,
                                                           frugal_managed_tensor** out) {
  auto release = [src] {
    if (src != nullptr && src->deleter != nullptr) src->deleter(src);
  };
  return guard("frugal_managed_tensor_from_dlpack", [&] {
    std::unique_ptr<void, std::function<void(void*)>> owner(src, [&](void*) { release(); });
    require_non_null(src, "frugal_managed_tensor_from_dlpack", "src");
    require_non_null(out, "frugal_managed_tensor_from_dlpack", "out");
    auto managed = frugal::import_dl_tensor(src->dl_tensor);
    owner.release();
    managed->release = release;
    *out = managed.release();
  });
}

FRUGAL_API frugal_error* frugal_managed_tensor_to_dlpack_versioned(frugal_managed_tensor* tensor,
                                                                   frugal_dlpack_managed_tensor_versioned** out) {
  return guard("frugal_managed_tensor_to_dlpack_versioned", [&] {
    require_non_null(tensor, "frugal_managed_tensor_to_dlpack_versioned", "tensor");
    require_non_null(out, "frugal_managed_tensor_to_dlpack_versioned", "out");
    auto* capsule = new frugal_dlpack_managed_tensor_versioned{};
    capsule->version = {FRUGAL_DLPACK_MAJOR_VERSION, FRUGAL_DLPACK_MINOR_VERSION};
    capsule->manager_ctx = tensor;
    capsule->deleter = &frugal::delete_exported_versioned;
    capsule->flags = tensor->read_only ? FRUGAL_DLPACK_FLAG_READ_ONLY : 0;
    capsule->dl_tensor = frugal::to_dl_tensor(tensor);
    *out = capsule;
  });
}

FRUGAL_API frugal_error* frugal_managed_tensor_to_dlpack(frugal_managed_tensor* tensor,
                                                         frugal_dlpack_managed_tensor** out) {
  return guard("frugal_managed_tensor_to_dlpack", [&] {
    require_non_null(tensor, "frugal_managed_tensor_to_dlpack", "tensor");
    require_non_null(out, "frugal_managed_tensor_to_dlpack", "out");
    if (tensor->read_only)
      frugal::fail(FRUGAL_ERR_UNSUPPORTED,
                   "frugal_managed_tensor_to_dlpack: the tensor is read-only and the legacy DLPack struct cannot say "
                   "so; export with frugal_managed_tensor_to_dlpack_versioned");
    auto* capsule = new frugal_dlpack_managed_tensor{};
    capsule->dl_tensor = frugal::to_dl_tensor(tensor);
    capsule->manager_ctx = tensor;
    capsule->deleter = &frugal::delete_exported_legacy;
    *out = capsule;
  });
}

}  // extern "C"
