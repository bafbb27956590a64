// frugal/sdk/plugin_support.hpp — C++ helpers for writing a plugin against
// the C ABI without ever letting an exception or a std:: type cross it.
// Header-only; depends on the ABI headers and the standard library only.
//
//   - PluginError: throw it with a frugal error code and a message.
//   - guard(host, body): runs body, converts whatever it throws into a
//     frugal_error* made through the host table. Every vtable adapter and
//     the entry point go through it (ABI rule 6).
//   - Options: typed option reads through the host table, with required
//     options, ranges, named choices, options that do not apply, and a
//     check that no unknown option was passed.
//
// Build plugins with -fvisibility=hidden, -fno-gnu-unique and a version
// script that exports only frugal_plugin_init_v2 (see docs/abi-rules.md).
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <limits>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "frugal/plugin.h"

namespace frugal::sdk {

// An error a plugin reports: one of frugal_error_code_values and a message.
class PluginError : public std::exception {
 public:
  PluginError(int32_t code, std::string message) : code_(code), message_(std::move(message)) {}
  [[nodiscard]] int32_t code() const noexcept { return code_; }
  [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }

 private:
  int32_t code_;
  std::string message_;
};

// Carries an error object the host already made (e.g. from an option read)
// up to the adapter, which returns it unchanged. Move-only; owns the error
// and destroys it through the host table if nobody takes it.
class HostError : public std::exception {
 public:
  HostError(const frugal_host_api* host, frugal_error* error) noexcept : host_(host), error_(error) {}
  HostError(HostError&& other) noexcept : host_(other.host_), error_(std::exchange(other.error_, nullptr)) {}
  HostError(const HostError&) = delete;
  HostError& operator=(const HostError&) = delete;
  HostError& operator=(HostError&&) = delete;
  ~HostError() override {
    if (error_ != nullptr) host_->error_destroy(error_);
  }
  [[nodiscard]] const char* what() const noexcept override { return "frugal host error"; }
  frugal_error* release() noexcept { return std::exchange(error_, nullptr); }

 private:
  const frugal_host_api* host_;
  frugal_error* error_;
};

// Throws HostError when a host call returned an error.
inline void check(const frugal_host_api* host, frugal_error* error) {
  if (error != nullptr) throw HostError(host, error);
}

// Runs `body` and returns NULL, or the error describing what it threw.
template <typename Body>
frugal_error* guard(const frugal_host_api* host, Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (HostError& e) {
    return e.release();
  } catch (const PluginError& e) {
    return host->error_create(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return host->error_create(FRUGAL_ERR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return host->error_create(FRUGAL_ERR_INTERNAL, e.what());
  } catch (...) {
    return host->error_create(FRUGAL_ERR_INTERNAL, "unknown exception in plugin");
  }
}

// The whole body of a plugin's entry point when its descriptor is static:
//   extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* frugal_plugin_init_v2(
//       const frugal_host_api* host, const frugal_plugin_desc** out) {
//     return frugal::sdk::hand_over_descriptor(host, out, kPlugin);
//   }
inline frugal_error* hand_over_descriptor(const frugal_host_api* host, const frugal_plugin_desc** out,
                                          const frugal_plugin_desc& descriptor) noexcept {
  return guard(host, [&] {
    if (out == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "init: out is NULL");
    *out = &descriptor;
  });
}

// The shortest text that reads back as v ("0.8", "1e-09", "nan", "-inf"),
// for messages: a value just outside a bound must not print as the bound
// ("1.0000000000000002"). Float or double.
template <typename Float>
std::string number_text(Float v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// Typed reads of a frugal_options object through the host table. Valid for
// the duration of the vtable call that received the options.
class Options {
 public:
  Options(const frugal_host_api* host, const frugal_options* options) : host_(host), options_(options) {}

  bool has(const char* name) const { return host_->option_type(options_, name) != 0; }

  // The host table the options came with (for its comm slots, logging).
  [[nodiscard]] const frugal_host_api* host() const noexcept { return host_; }

  int64_t get_int(const char* name, int64_t default_value) const {
    int64_t value = 0;
    check(host_, host_->option_get_int(options_, name, default_value, &value));
    return value;
  }
  double get_double(const char* name, double default_value) const {
    double value = 0.0;
    check(host_, host_->option_get_double(options_, name, default_value, &value));
    return value;
  }
  bool get_bool(const char* name, bool default_value) const {
    int32_t value = 0;
    check(host_, host_->option_get_bool(options_, name, default_value ? 1 : 0, &value));
    return value != 0;
  }
  std::string get_string(const char* name, const char* default_value) const {
    const char* value = nullptr;
    check(host_, host_->option_get_string(options_, name, default_value, &value));
    return value != nullptr ? std::string(value) : std::string();
  }
  // A communicator the host handed over (ABI 2.1), or nullptr when absent.
  // Valid until the instance created with these options is destroyed. On
  // a 2.0 core, which has no comms, a given one cannot exist: nullptr.
  frugal_comm* get_comm(const char* name) const {
    if (host_->struct_size < FRUGAL_HOST_API_V2_1_SIZE) return nullptr;
    frugal_comm* value = nullptr;
    check(host_, host_->option_get_comm(options_, name, &value));
    return value;
  }

  // The range checks of every plugin's options: the value must lie in the
  // range, else OUT_OF_RANGE (the code the core gives a value outside a
  // declared range), "option '<name>' must be <what is allowed>; got <v>".

  // An integer option in [lo, hi] (hi = INT64_MAX: no upper bound).
  int64_t get_int_in(const char* name, int64_t default_value, int64_t lo,
                     int64_t hi = std::numeric_limits<int64_t>::max()) const {
    const int64_t v = get_int(name, default_value);
    if (v < lo || v > hi) {
      const std::string allowed = hi == std::numeric_limits<int64_t>::max()
                                      ? ">= " + std::to_string(lo)
                                      : "in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
      out_of_range(name, allowed, std::to_string(v));
    }
    return v;
  }
  // A finite number option in [lo, hi] (hi = +inf: no upper bound).
  double get_double_in(const char* name, double default_value, double lo,
                       double hi = std::numeric_limits<double>::infinity()) const {
    return double_in(name, default_value, lo, false, hi);
  }
  // A finite number option in (lo, hi]: above lo, at most hi.
  double get_double_above(const char* name, double default_value, double lo,
                          double hi = std::numeric_limits<double>::infinity()) const {
    return double_in(name, default_value, lo, true, hi);
  }

  // A string option among named choices, mapped to its value. `scope` (may
  // be empty) says what narrowed the choices, for the message:
  //   get_choice<Mode>("mode", "fast", {{"fast", Mode::fast}, {"exact", Mode::exact}})
  template <typename T>
  T get_choice(const char* name, const char* default_value, std::initializer_list<std::pair<const char*, T>> choices,
               const std::string& scope = {}) const {
    const std::string value = get_string(name, default_value);
    std::string allowed;
    for (const auto& [text, v] : choices) {
      if (value == text) return v;
      allowed += allowed.empty() ? text : std::string(", ") + text;
    }
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT,
                      std::string("option '") + name + "' must be one of " + allowed + scope + "; got '" + value + "'");
  }

  // Throws INVALID_ARGUMENT for the first of `names` that is set although
  // it means nothing here: "option 'margin' <why>".
  void reject_set(std::initializer_list<const char*> names, const std::string& why) const {
    for (const char* name : names)
      if (has(name)) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, std::string("option '") + name + "' " + why);
  }

  // Throws INVALID_ARGUMENT when `name` is absent. Messages carry no
  // strategy name: the core prefixes every plugin error with it.
  void require(const char* name) const {
    if (!has(name)) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, std::string("option '") + name + "' is required");
  }

  // Throws INVALID_ARGUMENT naming the first option not in `known`.
  void check_known(std::initializer_list<const char*> known) const {
    const std::vector<const char*> names(known);
    check(host_, host_->options_check_known(options_, names.data(), names.size(), nullptr));
  }

 private:
  double double_in(const char* name, double default_value, double lo, bool lo_open, double hi) const {
    const double v = get_double(name, default_value);
    if (std::isfinite(v) && (lo_open ? v > lo : v >= lo) && v <= hi) return v;
    std::string allowed = "a finite number ";
    if (hi == std::numeric_limits<double>::infinity())
      allowed += (lo_open ? "> " : ">= ") + number_text(lo);
    else
      allowed += "in " + std::string(lo_open ? "(" : "[") + number_text(lo) + ", " + number_text(hi) + "]";
    out_of_range(name, allowed, number_text(v));
  }

  [[noreturn]] static void out_of_range(const char* name, const std::string& allowed, const std::string& got) {
    throw PluginError(FRUGAL_ERR_OUT_OF_RANGE,
                      std::string("option '") + name + "' must be " + allowed + "; got " + got);
  }

  const frugal_host_api* host_;
  const frugal_options* options_;
};

}  // namespace frugal::sdk
