// frugal/sdk/instance_slots.hpp — the parts every adapter of a stateful
// strategy kind (quantizer, router) shares: reading argument structs that
// may come from an older or newer core, filling a caller-sized out struct,
// and the export_state / import_state slots. Header-only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "frugal/sdk/plugin_support.hpp"

namespace frugal::sdk {

// A copy of *in with struct_size set to the full size and the fields past
// the caller's struct_size zeroed. Throws when the caller's struct does not
// reach `required` bytes (through its last required field).
template <typename T>
T read_sized_args(const T* in, std::size_t required, const char* what) {
  if (in == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, std::string(what) + " is NULL");
  if (in->struct_size < required) {
    throw PluginError(FRUGAL_ERR_ABI_MISMATCH, std::string(what) + "->struct_size is " +
                                                   std::to_string(in->struct_size) + "; at least " +
                                                   std::to_string(required) + " bytes are required");
  }
  T copy{};
  std::memcpy(static_cast<void*>(&copy), in, std::min(in->struct_size, sizeof(T)));
  copy.struct_size = sizeof(T);
  return copy;
}

// Writes `full` into *out up to the caller's out->struct_size.
template <typename T>
void write_sized_out(T* out, T full, const char* what) {
  if (out == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, std::string(what) + ": out is NULL");
  full.struct_size = out->struct_size;
  std::memcpy(static_cast<void*>(out), &full, std::min(out->struct_size, sizeof(full)));
}

// The export_state slot over impl.export_state() -> std::vector<std::byte>.
// The size is reported even when the buffer is too small, so a caller can
// retry with the right capacity.
template <typename Impl>
void export_state_into(const Impl& impl, void* buffer, size_t capacity, size_t* size) {
  if (size == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "export_state: size is NULL");
  const std::vector<std::byte> blob = impl.export_state();
  *size = blob.size();
  if (buffer == nullptr) return;
  if (capacity < blob.size()) {
    throw PluginError(FRUGAL_ERR_OUT_OF_RANGE, "export_state: the state takes " + std::to_string(blob.size()) +
                                                   " bytes; the buffer holds " + std::to_string(capacity));
  }
  if (!blob.empty()) std::memcpy(buffer, blob.data(), blob.size());
}

// The import_state slot over impl.import_state(std::span<const std::byte>).
template <typename Impl>
void import_state_from(Impl& impl, const void* data, size_t size) {
  if (data == nullptr && size != 0) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "import_state: data is NULL");
  impl.import_state(std::span<const std::byte>(static_cast<const std::byte*>(data), data ? size : 0));
}

// The slots every stateful kind's vtable shares, over an Impl constructed
// from its Options: create, destroy, the layout query (Impl::layout()
// returns the kind's layout struct), export_state and import_state. Kind
// adapters derive from it and add their call slots.
template <typename Impl>
struct InstanceSlots {
  struct Instance {
    const frugal_host_api* host;
    Impl impl;
  };

  static Instance& self(void* instance) { return *static_cast<Instance*>(instance); }

  static frugal_error* create(const frugal_host_api* host, const frugal_options* options, void** instance) {
    return guard(host, [&] {
      if (instance == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "create: instance is NULL");
      *instance = new Instance{host, Impl(Options(host, options))};
    });
  }

  static void destroy(void* instance) { delete static_cast<Instance*>(instance); }

  template <typename Layout>
  static frugal_error* layout(void* instance, Layout* out) {
    Instance& s = self(instance);
    return guard(s.host, [&] { write_sized_out(out, s.impl.layout(), "layout"); });
  }

  static frugal_error* export_state(void* instance, void* buffer, size_t capacity, size_t* size) {
    Instance& s = self(instance);
    return guard(s.host, [&] { export_state_into(s.impl, buffer, capacity, size); });
  }

  static frugal_error* import_state(void* instance, const void* data, size_t size) {
    Instance& s = self(instance);
    return guard(s.host, [&] { import_state_from(s.impl, data, size); });
  }

  // Runs body(impl) under guard() for the call slots.
  template <typename Body>
  static frugal_error* call(void* instance, Body&& body) {
    Instance& s = self(instance);
    return guard(s.host, [&] { body(s.impl); });
  }
};

}  // namespace frugal::sdk
