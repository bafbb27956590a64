// frugal/sdk/plugin_declaration.hpp — declare a whole plugin once, as
// constants, and let the compiler build and check its frugal_plugin_desc.
//
//   constexpr frugal_strategy_desc kStrategies[] = {
//       frugal::sdk::schedule_strategy<Constant>("constant", "fixed rate", kFlags),
//       frugal::sdk::store_strategy<MyStore>("mystore", "objects in ...", kFlags),
//   };
//   constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
//       .name = "my_plugin", .version = "1.2.0", .vendor = "Example Inc.", .license = "MIT",
//       .description = "What it offers, in a sentence"});
//   FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
//
// declare_plugin is consteval: a declaration the core would refuse (a name
// outside the ABI's grammar, a strategy declared twice, no strategy, a
// missing vtable, version or vendor) does not compile, and the compiler
// names the rule in the error (a call to a function named after it).
// The descriptor it returns is stamped with the ABI version and the sizes
// this plugin was built with and points at a static array of strategy
// pointers, so it stays valid until the plugin is unloaded.
// Header-only; depends on the ABI headers and the standard library only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>

#include "frugal/plugin.h"
#include "frugal/sdk/plugin_support.hpp"
#include "frugal/version.h"

namespace frugal::sdk {

// What a plugin says about itself; every string has static storage.
struct PluginIdentity {
  const char* name = nullptr;         // 1..64 bytes of [a-z0-9_.-], starting with a letter
  const char* version = nullptr;      // free-form, semantic versioning recommended
  const char* vendor = nullptr;       // who ships it
  const char* license = nullptr;      // SPDX expression
  const char* description = nullptr;  // longer description, or NULL
  void (*on_unload)(void) = nullptr;  // called once before unload, or NULL
};

namespace declaration_rules {

// Each function below is deliberately not constexpr: declare_plugin calls
// the one whose rule is broken, which stops the constant evaluation, and
// the compiler's "call to non-constexpr function" error names the rule.
inline void plugin_name_must_be_1_to_64_bytes_of_a_z_0_9_underscore_dot_dash_starting_with_a_letter() {}
inline void strategy_name_must_be_1_to_64_bytes_of_a_z_0_9_underscore_dot_dash_starting_with_a_letter() {}
inline void strategy_declared_twice_with_the_same_kind_and_name() {}
inline void plugin_version_vendor_and_license_must_be_non_empty() {}
inline void strategy_needs_a_vtable_and_a_full_struct_size() {}
inline void strategy_kind_is_not_a_frugal_kind() {}

// The ABI's name grammar (frugal/plugin.h): what the core's loader accepts.
constexpr bool is_valid_name(const char* name) {
  if (name == nullptr || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  std::size_t length = 0;
  for (; name[length] != '\0'; ++length) {
    const char c = name[length];
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!allowed || length >= 64) return false;
  }
  return true;
}

// Whether a descriptor's vtable is a null pointer constant. GCC with
// -fsanitize=undefined cannot fold `&static_object == nullptr` in a
// constant expression (it assumes a template's static might be weak), so
// a comparison the compiler cannot decide counts as non-null: it only
// ever involves the address of a static object, which is never null.
constexpr bool is_null_vtable(const void* vtable) {
  return __builtin_constant_p(vtable == nullptr) && vtable == nullptr;
}

constexpr bool is_non_empty(const char* text) { return text != nullptr && text[0] != '\0'; }

constexpr bool same_text(const char* a, const char* b) {
  for (; *a != '\0' && *a == *b; ++a, ++b) {
  }
  return *a == *b;
}

}  // namespace declaration_rules

// The static array of pointers the descriptor hands out: one per element of
// the constexpr array Strategies (C array or std::array).
template <const auto& Strategies>
struct StrategyPointers {
  static constexpr std::size_t count = std::size(Strategies);
  static constexpr std::array<const frugal_strategy_desc*, count> value = [] {
    std::array<const frugal_strategy_desc*, count> pointers{};
    for (std::size_t i = 0; i < count; ++i) pointers[i] = &Strategies[i];
    return pointers;
  }();
};

// The plugin descriptor of `identity` offering `Strategies`, checked at
// compile time against the rules the core enforces at load.
template <const auto& Strategies>
consteval frugal_plugin_desc declare_plugin(PluginIdentity identity) {
  using Pointers = StrategyPointers<Strategies>;
  static_assert(Pointers::count > 0, "a plugin declares at least one strategy");
  namespace rules = declaration_rules;
  if (!rules::is_valid_name(identity.name))
    rules::plugin_name_must_be_1_to_64_bytes_of_a_z_0_9_underscore_dot_dash_starting_with_a_letter();
  if (!rules::is_non_empty(identity.version) || !rules::is_non_empty(identity.vendor) ||
      !rules::is_non_empty(identity.license))
    rules::plugin_version_vendor_and_license_must_be_non_empty();
  for (std::size_t i = 0; i < Pointers::count; ++i) {
    const frugal_strategy_desc& s = Strategies[i];
    if (!rules::is_valid_name(s.name))
      rules::strategy_name_must_be_1_to_64_bytes_of_a_z_0_9_underscore_dot_dash_starting_with_a_letter();
    if (s.kind < FRUGAL_KIND_ROUTER || s.kind > FRUGAL_KIND_COMM) rules::strategy_kind_is_not_a_frugal_kind();
    if (rules::is_null_vtable(s.vtable) || s.struct_size != sizeof(frugal_strategy_desc))
      rules::strategy_needs_a_vtable_and_a_full_struct_size();
    for (std::size_t j = 0; j < i; ++j)
      if (Strategies[j].kind == s.kind && rules::same_text(Strategies[j].name, s.name))
        rules::strategy_declared_twice_with_the_same_kind_and_name();
  }
  return frugal_plugin_desc{
      sizeof(frugal_plugin_desc), FRUGAL_ABI_VERSION_MAJOR, FRUGAL_ABI_VERSION_MINOR, identity.name,
      identity.version,           identity.vendor,          identity.license,         Pointers::count,
      Pointers::value.data(),     identity.description,     identity.on_unload,       nullptr};
}

}  // namespace frugal::sdk

// Defines the plugin's exported entry point, frugal_plugin_init_v2, handing
// out `descriptor` (a frugal_plugin_desc with static storage). A macro
// because no function or template can do it: the entry must be an
// extern "C" function with that exact unmangled name, defined in the
// plugin's own translation unit, and C++ only gives a function a C name
// where it is written out as a declaration. Use it once per plugin, at
// namespace scope.
#define FRUGAL_SDK_PLUGIN_ENTRY(descriptor)                                                                    \
  extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* frugal_plugin_init_v2(const frugal_host_api* frugal_host,      \
                                                                      const frugal_plugin_desc** frugal_out) { \
    return ::frugal::sdk::hand_over_descriptor(frugal_host, frugal_out, descriptor);                           \
  }
