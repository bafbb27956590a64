// One plugin instance of a stateful strategy kind (quantizer, router): the
// plugin kept loaded, the vtable copied, create / destroy, calls whose
// errors come back prefixed with the strategy's label, and the
// export_state / import_state protocol every such kind shares. Internal to
// libfrugal.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "error.hpp"
#include "frugal/options.h"
#include "loaded_plugin.hpp"
#include "plugin_call.hpp"

namespace frugal {

template <class Vtable>
class StrategyInstance {
 public:
  // label names the instance in errors: "router 'deepseek_v3'".
  StrategyInstance(std::shared_ptr<LoadedPlugin> plugin, const Vtable& vtable, std::string label)
      : plugin_(std::move(plugin)), vtable_(vtable), label_(std::move(label)) {}

  ~StrategyInstance() {
    if (instance_ == nullptr) return;
    try {
      vtable_.destroy(instance_);
    } catch (...) {
      plugin_->log(FRUGAL_LOG_ERROR, label_ + ": destroy threw an exception (plugins must not throw across the ABI)");
    }
  }

  StrategyInstance(const StrategyInstance&) = delete;
  StrategyInstance& operator=(const StrategyInstance&) = delete;

  void create(const frugal_options* options) {
    void* instance = nullptr;
    call_plugin(label_, [&] { return vtable_.create(plugin_->host(), options, &instance); });
    if (instance == nullptr) fail(FRUGAL_ERR_INTERNAL, "{}: create succeeded but returned a NULL instance", label_);
    instance_ = instance;
  }

  // Runs slot(instance, args...) of the vtable, its error prefixed with the label.
  template <class Slot, class... Args>
  void call(Slot Vtable::*slot, Args&&... args) {
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

 private:
  std::shared_ptr<LoadedPlugin> plugin_;  // keeps the vtable's code mapped
  Vtable vtable_;
  std::string label_;
  void* instance_ = nullptr;
};

}  // namespace frugal
