// DLPack import (frugal_managed_tensor_from_dlpack[_versioned]) of capsules
// whose every field comes from the input: versions, ndim, shape, strides,
// dtype, device, byte offset, flags. Checked beyond "no crash": the
// deleter runs exactly once on every path, an accepted tensor validates and
// keeps its shape, and it survives an export + re-import round trip.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <vector>

#include "fuzz_support.hpp"

namespace {

using frugal::fuzz::finding;
using frugal::fuzz::ok;

int g_deletes = 0;
alignas(64) uint8_t g_storage[4096];

int64_t extent(FuzzedDataProvider& in) {
  // Mostly small extents (so some inputs are valid), sometimes any int64.
  return in.ConsumeBool() ? in.ConsumeIntegralInRange<int64_t>(-1, 9) : in.ConsumeIntegral<int64_t>();
}

struct Capsule {
  std::vector<int64_t> shape, strides;
  frugal_dlpack_tensor tensor{};
  uint64_t flags = 0;
  frugal_dlpack_version version{};
};

Capsule read_capsule(FuzzedDataProvider& in) {
  Capsule c;
  c.version.major = in.ConsumeBool() ? FRUGAL_DLPACK_MAJOR_VERSION : in.ConsumeIntegral<uint32_t>();
  c.version.minor = in.ConsumeIntegral<uint32_t>();
  c.flags = in.ConsumeIntegral<uint64_t>();
  const int32_t ndim = in.ConsumeIntegralInRange<int32_t>(-2, FRUGAL_TENSOR_MAX_NDIM + 2);
  for (int32_t i = 0; i < ndim; ++i) c.shape.push_back(extent(in));
  const bool with_strides = in.ConsumeBool();
  if (with_strides)
    for (int32_t i = 0; i < ndim; ++i) c.strides.push_back(extent(in));
  c.tensor.data = in.ConsumeBool() ? g_storage : nullptr;
  c.tensor.device.device_type = in.ConsumeBool() ? 1 : in.ConsumeIntegral<int32_t>();
  c.tensor.device.device_id = in.ConsumeIntegralInRange<int32_t>(-1, 2);
  c.tensor.ndim = ndim;
  c.tensor.dtype.code = in.ConsumeIntegral<uint8_t>();
  c.tensor.dtype.bits = in.ConsumeIntegral<uint8_t>();
  c.tensor.dtype.lanes = in.ConsumeBool() ? 1 : in.ConsumeIntegral<uint16_t>();
  c.tensor.byte_offset = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint64_t>(0, 64) : in.ConsumeIntegral<uint64_t>();
  c.tensor.shape = c.shape.empty() ? nullptr : c.shape.data();
  c.tensor.strides = with_strides && !c.strides.empty() ? c.strides.data() : nullptr;
  return c;
}

// An accepted tensor must look like what was handed in.
void check_view(const frugal_managed_tensor* managed, const Capsule& c) {
  const frugal_tensor* view = frugal_managed_tensor_view(managed);
  if (view == nullptr) finding("an imported tensor has no view");
  if (!ok(frugal_tensor_validate(view))) finding("an imported tensor does not validate");
  if (view->ndim != c.tensor.ndim) finding("ndim changed on import");
  for (int32_t i = 0; i < view->ndim; ++i)
    if (view->shape[i] != c.shape[static_cast<size_t>(i)]) finding("an extent changed on import");
}

// Export the tensor again and import the result: the shape must come back.
void round_trip(frugal_managed_tensor* managed, const Capsule& c, bool versioned) {
  frugal_managed_tensor* again = nullptr;
  if (versioned) {
    frugal_dlpack_managed_tensor_versioned* out = nullptr;
    if (!ok(frugal_managed_tensor_to_dlpack_versioned(managed, &out))) {
      frugal_managed_tensor_destroy(managed);
      return;
    }
    if (!ok(frugal_managed_tensor_from_dlpack_versioned(out, &again))) finding("re-import of an export failed");
  } else {
    frugal_dlpack_managed_tensor* out = nullptr;
    if (!ok(frugal_managed_tensor_to_dlpack(managed, &out))) {
      frugal_managed_tensor_destroy(managed);
      return;
    }
    if (!ok(frugal_managed_tensor_from_dlpack(out, &again))) finding("re-import of a legacy export failed");
  }
  check_view(again, c);
  frugal_managed_tensor_destroy(again);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const bool versioned = in.ConsumeBool();
  Capsule c = read_capsule(in);
  g_deletes = 0;
  frugal_managed_tensor* managed = nullptr;
  bool accepted = false;
  if (versioned) {
    frugal_dlpack_managed_tensor_versioned capsule{};
    capsule.version = c.version;
    capsule.flags = c.flags;
    capsule.dl_tensor = c.tensor;
    capsule.deleter = [](frugal_dlpack_managed_tensor_versioned*) { ++g_deletes; };
    accepted = ok(frugal_managed_tensor_from_dlpack_versioned(&capsule, &managed));
    if (!accepted && g_deletes != 1) finding("a refused versioned capsule was not released exactly once");
    if (accepted) {
      check_view(managed, c);
      round_trip(managed, c, true);
    }
  } else {
    frugal_dlpack_managed_tensor capsule{};
    capsule.dl_tensor = c.tensor;
    capsule.deleter = [](frugal_dlpack_managed_tensor*) { ++g_deletes; };
    accepted = ok(frugal_managed_tensor_from_dlpack(&capsule, &managed));
    if (!accepted && g_deletes != 1) finding("a refused legacy capsule was not released exactly once");
    if (accepted) {
      check_view(managed, c);
      round_trip(managed, c, false);
    }
  }
  if (accepted && g_deletes != 1) finding("an accepted capsule was released " + std::to_string(g_deletes) + " times");
  return 0;
}
