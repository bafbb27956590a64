// One plugin instance of a strategy, of any kind: the plugin kept loaded,
// the vtable copied, the host's options checked against the strategy's
// declarations before create, create / destroy (every kind, stores too),
// calls whose errors come back prefixed with the strategy's label, and the
// export_state / import_state protocol the stateful kinds share. Every
// kind's host object holds one, so the lifetime rules live here only.
// Internal to libfrugal.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "error.hpp"
#include "frugal/options.h"
#include "loaded_plugin.hpp"
#include "option_decls.hpp"
#include "options.hpp"
#include "plugin_call.hpp"

namespace frugal {

// The slots that make and release an instance, and their names in errors.
template <class Vtable>
struct LifetimeSlots {
  static constexpr auto make = &Vtable::create;
  static constexpr auto release = &Vtable::destroy;
  static constexpr const char* make_name = "create";
  static constexpr const char* release_name = "destroy";
};

template <class Vtable>
class StrategyInstance {
  using Slots = LifetimeSlots<Vtable>;

 public:
  // `record` is a strategy of `plugin` (which keeps it alive); label names
  // the instance in errors: "router 'deepseek_v3'".
  StrategyInstance(std::shared_ptr<LoadedPlugin> plugin, const StrategyRecord& record, std::string label)
      : plugin_(std::move(plugin)), record_(&record), vtable_(record.vtable<Vtable>()), label_(std::move(label)) {}

  ~StrategyInstance() {
    if (instance_ == nullptr) return;
    try {
      (vtable_.*Slots::release)(instance_);
    } catch (...) {
      plugin_->log(FRUGAL_LOG_ERROR,
                   label_ + ": " + Slots::release_name + " threw an exception (plugins must not throw across the ABI)");
    }
  }

  StrategyInstance(const StrategyInstance&) = delete;
  StrategyInstance& operator=(const StrategyInstance&) = delete;

  // Checks `options` against the strategy's declarations (when it has
  // any), then makes the plugin instance. Call once.
  void create(const frugal_options* options) {
    check_declared_options(record_->options, options, label_);
    void* instance = nullptr;
    call_plugin(label_, [&] { return (vtable_.*Slots::make)(plugin_->host(), options, &instance); });
    if (instance == nullptr)
      fail(FRUGAL_ERR_INTERNAL, "{}: {} succeeded but returned a NULL instance", label_, Slots::make_name);
    instance_ = instance;
    // A comm handed over as an option may be kept by the instance (the
    // vtable headers promise it stays valid until destroy).
    comms_ = comm_references(options);
  }

  // Takes over an instance the plugin made by another slot (a comm's
  // split), released by the same destroy. Call once, instead of create.
  void adopt(void* instance) {
    if (instance == nullptr) fail(FRUGAL_ERR_INTERNAL, "{}: adopting a NULL instance", label_);
    instance_ = instance;
  }
  [[nodiscard]] void* raw() const noexcept { return instance_; }

  // Runs slot(instance, args...) of the vtable, its error prefixed with the
  // label. Const for the slots a kind documents as not changing what the
  // host sees (a store's reads, a packer's pack).
  template <class Slot, class... Args>
  void call(Slot Vtable::*slot, Args&&... args) const {
    call_plugin(label_, [&] { return (vtable_.*slot)(instance_, std::forward<Args>(args)...); });
  }

  // Sets *size_out to the state's size (also when failing for want of room)
  // and writes the state when buffer is not null and it fits.
  void export_state(void* buffer, std::size_t capacity, std::size_t* size_out) {
    std::size_t size = 0;
    try {
      call(&Vtable::export_state, buffer, buffer != nullptr ? capacity : 0, &size);
    } catch (const Error&) {
      *size_out = size;
      throw;
    }
    *size_out = size;
    if (buffer != nullptr && size > capacity)
      fail(FRUGAL_ERR_INTERNAL, "{}: export_state reported {} bytes written into a {}-byte buffer", label_, size,
           capacity);
  }

  void import_state(const void* data, std::size_t size) { call(&Vtable::import_state, data, size); }

  [[nodiscard]] const std::string& label() const noexcept { return label_; }
  [[nodiscard]] const Vtable& vtable() const noexcept { return vtable_; }
  // Logs through the host's sink, prefixed with the label.
  void log(int32_t level, const std::string& message) const { plugin_->log(level, label_ + ": " + message); }

 private:
  std::shared_ptr<LoadedPlugin> plugin_;  // keeps the vtable's code and the record alive
  const StrategyRecord* record_;
  Vtable vtable_;
  std::string label_;
  // Declared before instance_'s release in the destructor body runs, so
  // they are dropped after the plugin's destroy.
  std::vector<std::shared_ptr<frugal_comm>> comms_;
  void* instance_ = nullptr;
};

}  // namespace frugal
