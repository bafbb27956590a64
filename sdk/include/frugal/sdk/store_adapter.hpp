// frugal/sdk/store_adapter.hpp — declare a checkpoint store strategy
// (FRUGAL_KIND_STORE, frugal/store_vtable.h) as a plain C++ class. The
// class needs:
//   explicit Impl(const frugal::sdk::Options& options);   // validate, throw PluginError
//   void put(const char* key, const void* data, size_t size);
//   uint64_t size(const char* key) const;                  // PluginError(NOT_FOUND) when absent
//   void read(const char* key, uint64_t offset, void* dst, size_t length) const;
//   void list(const char* prefix, frugal_store_list_fn fn, void* user_data) const;
//   void remove(const char* key);                          // absent key: success
// and store_strategy<Impl>(name, summary, flags) yields its descriptor.
//
// The members take the vtable's arguments as they come, because a store's
// contract lives in them (keys it must validate again, NULL data with size
// 0, a listing the callback may stop): the adapter only owns the instance,
// checks the out pointers and turns whatever Impl throws into a frugal
// error through guard(). Impl may be neither copyable nor movable: it is
// built in place. Declare FRUGAL_STRATEGY_THREAD_SAFE only when Impl
// serves different keys from several threads at once (the core serialises
// calls on one key).
#pragma once

#include <cstdint>

#include "frugal/sdk/instance_slots.hpp"
#include "frugal/sdk/plugin_support.hpp"
#include "frugal/store_vtable.h"

namespace frugal::sdk {

// Instance ownership and the guarded call come from InstanceSlots, as for
// the stateful kinds; a store adds its own slots (and names its handle).
template <typename Impl>
struct StoreAdapter : InstanceSlots<Impl> {
  using Base = InstanceSlots<Impl>;
  using Instance = typename Base::Instance;

  static frugal_error* create(const frugal_host_api* host, const frugal_options* options, void** store) {
    return guard(host, [&] {
      if (store == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "create: store is NULL");
      *store = new Instance{host, Impl(Options(host, options))};
    });
  }

  static frugal_error* put(void* store, const char* key, const void* data, size_t size) {
    return Base::call(store, [&](Impl& impl) { impl.put(key, data, size); });
  }

  static frugal_error* size(void* store, const char* key, uint64_t* out) {
    return Base::call(store, [&](Impl& impl) {
      if (out == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "size: size is NULL");
      *out = impl.size(key);
    });
  }

  static frugal_error* read(void* store, const char* key, uint64_t offset, void* dst, size_t length) {
    return Base::call(store, [&](Impl& impl) { impl.read(key, offset, dst, length); });
  }

  static frugal_error* list(void* store, const char* prefix, frugal_store_list_fn fn, void* user_data) {
    return Base::call(store, [&](Impl& impl) { impl.list(prefix, fn, user_data); });
  }

  static frugal_error* remove(void* store, const char* key) {
    return Base::call(store, [&](Impl& impl) { impl.remove(key); });
  }

  static constexpr frugal_store_vtable vtable{
      sizeof(frugal_store_vtable), &create, &Base::destroy, &put, &size, &read, &list, &remove};
};

// ext: the descriptor's extension chain, e.g. options_ext<kOptions>() (option_decl.hpp).
template <typename Impl>
constexpr frugal_strategy_desc store_strategy(const char* name, const char* summary, uint32_t flags,
                                              const frugal_ext_header* ext = nullptr) {
  return frugal_strategy_desc{
      sizeof(frugal_strategy_desc), FRUGAL_KIND_STORE, flags, name, summary, &StoreAdapter<Impl>::vtable, ext};
}

}  // namespace frugal::sdk
