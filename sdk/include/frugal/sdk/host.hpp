// frugal/sdk/host.hpp — small RAII helpers for C++ hosts over the C API:
// owning handles that destroy themselves (a C++ host never calls a
// *_destroy or *_close itself), an options builder, a context that loads
// and describes plugins as values, and an exception carrying the frugal
// error code and message. Header-only; links against libfrugal.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frugal/frugal.h"

namespace frugal::host {

// A failed frugal call, with its stable code.
class Exception : public std::runtime_error {
 public:
  Exception(int32_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
  [[nodiscard]] int32_t code() const noexcept { return code_; }

 private:
  int32_t code_;
};

// Throws Exception (and frees the error) when a call failed.
inline void check(frugal_error* error) {
  if (error == nullptr) return;
  const int32_t code = frugal_error_code(error);
  std::string message = frugal_error_message(error);
  frugal_error_destroy(error);
  throw Exception(code, message);
}

struct ContextDeleter {
  void operator()(frugal_context* c) const noexcept { frugal_context_destroy(c); }
};
struct OptionsDeleter {
  void operator()(frugal_options* o) const noexcept { frugal_options_destroy(o); }
};
struct ScheduleDeleter {
  void operator()(frugal_schedule* s) const noexcept { frugal_schedule_destroy(s); }
};
struct ErrorDeleter {
  void operator()(frugal_error* e) const noexcept { frugal_error_destroy(e); }
};
struct ManagedTensorDeleter {
  void operator()(frugal_managed_tensor* t) const noexcept { frugal_managed_tensor_destroy(t); }
};
struct PackerDeleter {
  void operator()(frugal_packer* p) const noexcept { frugal_packer_destroy(p); }
};
struct PackPlanDeleter {
  void operator()(frugal_pack_plan* p) const noexcept { frugal_pack_plan_destroy(p); }
};
struct PackStreamDeleter {
  void operator()(frugal_pack_stream* s) const noexcept { frugal_pack_stream_destroy(s); }
};
struct QuantizerDeleter {
  void operator()(frugal_quantizer* q) const noexcept { frugal_quantizer_destroy(q); }
};
struct SchedulerDeleter {
  void operator()(frugal_scheduler* s) const noexcept { frugal_scheduler_destroy(s); }
};
struct RouterDeleter {
  void operator()(frugal_router* r) const noexcept { frugal_router_destroy(r); }
};
struct LossScalerDeleter {
  void operator()(frugal_loss_scaler* s) const noexcept { frugal_loss_scaler_destroy(s); }
};
struct StoreDeleter {
  void operator()(frugal_store* s) const noexcept { frugal_store_destroy(s); }
};
struct CkptEngineDeleter {
  void operator()(frugal_ckpt_engine* e) const noexcept { frugal_ckpt_engine_destroy(e); }
};
struct CommDeleter {
  void operator()(frugal_comm* c) const noexcept { frugal_comm_destroy(c); }
};
// Strings frugal hands over to the caller (frugal_ckpt_inspect_json).
struct StringDeleter {
  void operator()(char* text) const noexcept { frugal_string_free(text); }
};

using ContextPtr = std::unique_ptr<frugal_context, ContextDeleter>;
using OptionsPtr = std::unique_ptr<frugal_options, OptionsDeleter>;
using SchedulePtr = std::unique_ptr<frugal_schedule, ScheduleDeleter>;
using ErrorPtr = std::unique_ptr<frugal_error, ErrorDeleter>;
using ManagedTensorPtr = std::unique_ptr<frugal_managed_tensor, ManagedTensorDeleter>;
using PackerPtr = std::unique_ptr<frugal_packer, PackerDeleter>;
using PackPlanPtr = std::unique_ptr<frugal_pack_plan, PackPlanDeleter>;
using PackStreamPtr = std::unique_ptr<frugal_pack_stream, PackStreamDeleter>;
using QuantizerPtr = std::unique_ptr<frugal_quantizer, QuantizerDeleter>;
using LossScalerPtr = std::unique_ptr<frugal_loss_scaler, LossScalerDeleter>;
using RouterPtr = std::unique_ptr<frugal_router, RouterDeleter>;
using SchedulerPtr = std::unique_ptr<frugal_scheduler, SchedulerDeleter>;
using StorePtr = std::unique_ptr<frugal_store, StoreDeleter>;
using CkptEnginePtr = std::unique_ptr<frugal_ckpt_engine, CkptEngineDeleter>;
using CommPtr = std::unique_ptr<frugal_comm, CommDeleter>;
using StringPtr = std::unique_ptr<char, StringDeleter>;

inline ContextPtr make_context() {
  frugal_context* context = nullptr;
  check(frugal_context_create(&context));
  return ContextPtr(context);
}

inline OptionsPtr make_options() {
  frugal_options* options = nullptr;
  check(frugal_options_create(&options));
  return OptionsPtr(options);
}

inline SchedulePtr make_schedule(frugal_context* context, const char* name, const frugal_options* options) {
  frugal_schedule* schedule = nullptr;
  check(frugal_schedule_create(context, name, options, &schedule));
  return SchedulePtr(schedule);
}

inline PackerPtr make_packer(frugal_context* context, const char* name, const frugal_options* options) {
  frugal_packer* packer = nullptr;
  check(frugal_packer_create(context, name, options, &packer));
  return PackerPtr(packer);
}

inline QuantizerPtr make_quantizer(frugal_context* context, const char* name, const frugal_options* options) {
  frugal_quantizer* quantizer = nullptr;
  check(frugal_quantizer_create(context, name, options, &quantizer));
  return QuantizerPtr(quantizer);
}

inline SchedulerPtr make_scheduler(frugal_context* context, const frugal_scheduler_config& config) {
  frugal_scheduler* scheduler = nullptr;
  check(frugal_scheduler_create(context, &config, &scheduler));
  return SchedulerPtr(scheduler);
}

inline RouterPtr make_router(frugal_context* context, const char* name, const frugal_options* options) {
  frugal_router* router = nullptr;
  check(frugal_router_create(context, name, options, &router));
  return RouterPtr(router);
}

inline LossScalerPtr make_loss_scaler(const frugal_options* options) {
  frugal_loss_scaler* scaler = nullptr;
  check(frugal_loss_scaler_create(options, &scaler));
  return LossScalerPtr(scaler);
}

inline StorePtr make_store(frugal_context* context, const char* name, const frugal_options* options) {
  frugal_store* store = nullptr;
  check(frugal_store_create(context, name, options, &store));
  return StorePtr(store);
}

inline CkptEnginePtr make_ckpt_engine(frugal_store* store, const frugal_options* options) {
  frugal_ckpt_engine* engine = nullptr;
  check(frugal_ckpt_engine_create(store, options, &engine));
  return CkptEnginePtr(engine);
}

inline CommPtr make_comm(frugal_context* context, const char* name, const frugal_options* options) {
  frugal_comm* comm = nullptr;
  check(frugal_comm_create(context, name, options, &comm));
  return CommPtr(comm);
}

// An owned frugal_options filled by chained typed setters:
//   host::Options o;
//   o.set("lr", 3e-4).set("warmup_steps", 100).set("shape", "cosine");
// Each C++ type maps to one option type and nothing converts silently:
// any integer (not bool, not a character) is INT, float/double DOUBLE,
// bool BOOL, text STRING. An integer outside int64_t, or NULL text, throws
// Exception(FRUGAL_ERR_INVALID_ARGUMENT) naming the option.
class Options {
 public:
  Options() : options_(make_options()) {}

  template <std::integral Int>
  requires(!std::same_as<Int, bool> && !std::same_as<Int, char> && !std::same_as<Int, char8_t> &&
           !std::same_as<Int, char16_t> && !std::same_as<Int, char32_t> &&
           !std::same_as<Int, wchar_t>) Options& set(const char* name, Int value) {
    if (!std::in_range<int64_t>(value)) {
      throw Exception(FRUGAL_ERR_INVALID_ARGUMENT,
                      std::string("option '") + name + "': " + std::to_string(value) + " does not fit an INT (int64)");
    }
    check(frugal_options_set_int(options_.get(), name, static_cast<int64_t>(value)));
    return *this;
  }

  template <std::floating_point Float>
  Options& set(const char* name, Float value) {
    check(frugal_options_set_double(options_.get(), name, static_cast<double>(value)));
    return *this;
  }

  // A template so that nothing converts to bool: a pointer or a number
  // never lands here.
  template <std::same_as<bool> Bool>
  Options& set(const char* name, Bool value) {
    check(frugal_options_set_bool(options_.get(), name, value ? 1 : 0));
    return *this;
  }

  Options& set(const char* name, const char* value) {
    if (value == nullptr)
      throw Exception(FRUGAL_ERR_INVALID_ARGUMENT, std::string("option '") + name + "': string value is NULL");
    check(frugal_options_set_string(options_.get(), name, value));
    return *this;
  }

  Options& set(const char* name, std::string_view value) { return set(name, std::string(value).c_str()); }

  // A communicator, held by reference (frugal_options_set_comm).
  Options& set(const char* name, frugal_comm* comm) {
    check(frugal_options_set_comm(options_.get(), name, comm));
    return *this;
  }

  // Sets `name` from text as a command line spells it ("true", "8", "3e-4", other text: STRING).
  Options& set_parsed(const char* name, const char* text) {
    check(frugal_options_set_parsed(options_.get(), name, text));
    return *this;
  }

  [[nodiscard]] const frugal_options* get() const noexcept { return options_.get(); }
  frugal_options* get() noexcept { return options_.get(); }

 private:
  OptionsPtr options_;
};

// One strategy of a loaded plugin, copied out of the context.
struct StrategyInfo {
  int32_t kind = 0;
  uint32_t flags = 0;
  std::string name;
  std::string summary;
  std::string plugin_name;
  bool shadowed = false;
};

// One loaded plugin and its strategies, copied out of the context.
struct PluginInfo {
  std::string name;
  std::string version;
  std::string vendor;
  std::string license;
  std::string description;
  std::string path;
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;
  std::vector<StrategyInfo> strategies;
};

// A file that failed to load, and why.
struct LoadFailure {
  std::string path;
  std::string message;
  int32_t code = 0;
};

// An owned frugal_context whose plugin loading and introspection return
// values and throw Exception on failure.
class Context {
 public:
  Context() : context_(make_context()) {}

  [[nodiscard]] frugal_context* get() const noexcept { return context_.get(); }

  Context& add_plugin_dir(const std::string& dir) {
    check(frugal_context_add_plugin_dir(context_.get(), dir.c_str()));
    return *this;
  }

  // Runs discovery (FRUGAL_DISCOVER_* flags); returns how many plugins it
  // newly loaded. Files that fail are in load_failures(), not thrown.
  std::size_t discover(uint32_t flags = 0) {
    std::size_t loaded = 0;
    check(frugal_context_discover_plugins(context_.get(), flags, &loaded));
    return loaded;
  }

  // Loads one plugin file and returns its description (also when the file
  // was already loaded).
  PluginInfo load(const std::string& path) {
    const std::size_t before = plugin_count();
    check(frugal_context_load_plugin(context_.get(), path.c_str()));
    if (plugin_count() > before) return plugin(before);
    std::error_code ignored;
    const std::string canonical = std::filesystem::canonical(path, ignored).string();
    for (std::size_t i = 0; i < before; ++i) {
      PluginInfo info = plugin(i);
      if (info.path == canonical) return info;
    }
    throw Exception(FRUGAL_ERR_NOT_FOUND, "plugin file '" + path + "' loaded but not listed by the context");
  }

  [[nodiscard]] std::size_t plugin_count() const noexcept { return frugal_context_plugin_count(context_.get()); }

  [[nodiscard]] PluginInfo plugin(std::size_t index) const {
    frugal_plugin_info raw{};
    raw.struct_size = sizeof(raw);
    check(frugal_context_plugin_info(context_.get(), index, &raw));
    PluginInfo info{raw.name, raw.version,   raw.vendor,    raw.license, raw.description,
                    raw.path, raw.abi_major, raw.abi_minor, {}};
    for (std::size_t s = 0; s < raw.strategy_count; ++s) {
      frugal_strategy_info strategy{};
      strategy.struct_size = sizeof(strategy);
      check(frugal_context_strategy_info(context_.get(), index, s, &strategy));
      info.strategies.push_back(to_value(strategy));
    }
    return info;
  }

  [[nodiscard]] std::vector<PluginInfo> plugins() const {
    std::vector<PluginInfo> all;
    for (std::size_t i = 0; i < plugin_count(); ++i) all.push_back(plugin(i));
    return all;
  }

  [[nodiscard]] std::vector<LoadFailure> load_failures() const {
    std::vector<LoadFailure> all;
    for (std::size_t i = 0; i < frugal_context_load_failure_count(context_.get()); ++i) {
      frugal_load_failure_info raw{};
      raw.struct_size = sizeof(raw);
      check(frugal_context_load_failure(context_.get(), i, &raw));
      all.push_back(LoadFailure{raw.path, raw.message, raw.code});
    }
    return all;
  }

  // The strategy of `kind` called `name` ("name" or "plugin/name");
  // Exception(FRUGAL_ERR_NOT_FOUND) when there is none.
  [[nodiscard]] StrategyInfo find_strategy(int32_t kind, const std::string& name) const {
    frugal_strategy_info raw{};
    raw.struct_size = sizeof(raw);
    check(frugal_context_find_strategy(context_.get(), kind, name.c_str(), &raw));
    return to_value(raw);
  }

 private:
  static StrategyInfo to_value(const frugal_strategy_info& raw) {
    return StrategyInfo{raw.kind, raw.flags, raw.name, raw.summary, raw.plugin_name, raw.shadowed != 0};
  }

  ContextPtr context_;
};

}  // namespace frugal::host
