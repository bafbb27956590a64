// frugal/sdk/option_decl.hpp — declare a strategy's options next to it
// (frugal_strategy_options_ext), so the core checks names, types,
// ranges and choices before create, and tools can list them.
//
//   constexpr frugal_option_decl kStepDecayOptions[] = {
//       frugal::sdk::double_option("lr", "peak learning rate, > 0").required(),
//       frugal::sdk::int_option("every", "steps between decays").default_value("1000").range(1, 1e9),
//       frugal::sdk::string_option("shape", "decay shape").default_value("step").choices("step|smooth"),
//   };
//   constexpr frugal_strategy_desc kStrategies[] = {
//       frugal::sdk::schedule_strategy<StepDecay>("step_decay", "...", kFlags,
//                                                 frugal::sdk::options_ext<kStepDecayOptions>()),
//   };
//
// Declarations must say what create accepts: a default create uses when
// the option is absent, inclusive bounds the code enforces, the exact
// choices. The conformance kit checks that they agree with the code.
// Header-only; depends on the ABI headers and the standard library only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <vector>

#include "frugal/plugin.h"

namespace frugal::sdk {

// A frugal_option_decl built step by step in constant expressions. Each
// step returns an edited copy; plain member edits (no lambdas or member
// templates) keep it a constant expression on every compiler we support.
struct OptionDeclBuilder {
  frugal_option_decl decl;

  constexpr OptionDeclBuilder default_value(const char* text) const {
    OptionDeclBuilder copy = *this;
    copy.decl.default_value = text;
    return copy;
  }
  [[nodiscard]] constexpr OptionDeclBuilder required() const {
    OptionDeclBuilder copy = *this;
    copy.decl.flags |= FRUGAL_OPTION_DECL_REQUIRED;
    return copy;
  }
  [[nodiscard]] constexpr OptionDeclBuilder min(double lo) const {
    OptionDeclBuilder copy = *this;
    copy.decl.min = lo;
    copy.decl.flags |= FRUGAL_OPTION_DECL_HAS_MIN;
    return copy;
  }
  [[nodiscard]] constexpr OptionDeclBuilder max(double hi) const {
    OptionDeclBuilder copy = *this;
    copy.decl.max = hi;
    copy.decl.flags |= FRUGAL_OPTION_DECL_HAS_MAX;
    return copy;
  }
  [[nodiscard]] constexpr OptionDeclBuilder range(double lo, double hi) const { return min(lo).max(hi); }
  // '|'-separated allowed values of a string option.
  constexpr OptionDeclBuilder choices(const char* values) const {
    OptionDeclBuilder copy = *this;
    copy.decl.choices = values;
    return copy;
  }
  // A string naming a directory the strategy may create (a store's root).
  [[nodiscard]] constexpr OptionDeclBuilder directory() const {
    OptionDeclBuilder copy = *this;
    copy.decl.flags |= FRUGAL_OPTION_DECL_DIRECTORY;
    return copy;
  }

  constexpr operator frugal_option_decl() const { return decl; }  // NOLINT: meant to convert in arrays
};

constexpr OptionDeclBuilder option_of_type(int32_t type, const char* name, const char* doc) {
  return OptionDeclBuilder{
      frugal_option_decl{sizeof(frugal_option_decl), name, type, 0, nullptr, 0.0, 0.0, nullptr, doc}};
}
constexpr OptionDeclBuilder int_option(const char* name, const char* doc) {
  return option_of_type(FRUGAL_OPTION_INT, name, doc);
}
constexpr OptionDeclBuilder double_option(const char* name, const char* doc) {
  return option_of_type(FRUGAL_OPTION_DOUBLE, name, doc);
}
constexpr OptionDeclBuilder bool_option(const char* name, const char* doc) {
  return option_of_type(FRUGAL_OPTION_BOOL, name, doc);
}
constexpr OptionDeclBuilder string_option(const char* name, const char* doc) {
  return option_of_type(FRUGAL_OPTION_STRING, name, doc);
}
// A communicator the host hands over (frugal_options_set_comm, ABI 2.1); no default.
constexpr OptionDeclBuilder comm_option(const char* name, const char* doc) {
  return option_of_type(FRUGAL_OPTION_COMM, name, doc);
}

// The static extension declaring the options of the constexpr array Decls
// (C array or std::array of frugal_option_decl); valid for the plugin's life.
template <const auto& Decls>
struct DeclaredOptions {
  static constexpr std::size_t count = std::size(Decls);
  static constexpr std::array<const frugal_option_decl*, count> pointers = [] {
    std::array<const frugal_option_decl*, count> out{};
    for (std::size_t i = 0; i < count; ++i) out[i] = &Decls[i];
    return out;
  }();
  static constexpr frugal_strategy_options_ext ext{
      {sizeof(frugal_strategy_options_ext), FRUGAL_EXT_STRATEGY_OPTIONS, 0, nullptr}, count, pointers.data()};
};

// The chain to pass as a *_strategy(...) descriptor's `ext`.
template <const auto& Decls>
constexpr const frugal_ext_header* options_ext() {
  return &DeclaredOptions<Decls>::ext.header;
}

// A frugal_option_type_values value as tools print it ("int", "double",
// "bool", "string"; "unknown" for any other), the core's own spelling.
constexpr const char* option_type_name(int32_t type) {
  switch (type) {
    case FRUGAL_OPTION_INT: return "int";
    case FRUGAL_OPTION_DOUBLE: return "double";
    case FRUGAL_OPTION_BOOL: return "bool";
    case FRUGAL_OPTION_STRING: return "string";
    case FRUGAL_OPTION_COMM: return "comm";
    default: return "unknown";
  }
}

// Reading declarations back (the core, the conformance kit and the CLI
// all read them the same way):

// The entries of a '|'-separated choices list, viewing into `choices`.
inline std::vector<std::string_view> split_choices(std::string_view choices) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const std::size_t bar = choices.find('|', start);
    out.push_back(choices.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
    if (bar == std::string_view::npos) return out;
    start = bar + 1;
  }
}

// A declared INT bound as int64: declared bounds are integral, and one
// beyond the int64 range clamps to its end.
constexpr int64_t int_bound(double bound) {
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (bound <= -kTwoTo63) return INT64_MIN;
  if (bound >= kTwoTo63) return INT64_MAX;
  return static_cast<int64_t>(bound);
}

// A strategy that takes no option at all: every option is refused by the core.
inline constexpr frugal_strategy_options_ext kNoOptions{
    {sizeof(frugal_strategy_options_ext), FRUGAL_EXT_STRATEGY_OPTIONS, 0, nullptr}, 0, nullptr};

}  // namespace frugal::sdk
