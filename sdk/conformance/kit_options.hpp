// kit_options.hpp — the options the kit creates a strategy with: what the
// strategy declares (read back from the core), the value the kit
// builds for each required option, and the --option values, which win.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "frugal/frugal.h"
#include "frugal/sdk/option_decl.hpp"

namespace frugal::conformance {

using sdk::int_bound;
using sdk::split_choices;

// One declared option, copied out of frugal_option_info (its strings die
// with the context that reported them).
struct DeclaredOption {
  std::string name;
  int32_t type = 0;
  uint32_t flags = 0;
  std::optional<std::string> default_value;
  double min = 0.0;
  double max = 0.0;
  std::optional<std::string> choices;  // '|'-separated
  std::string doc;

  [[nodiscard]] bool has(uint32_t flag) const { return (flags & flag) != 0; }
  [[nodiscard]] bool required() const { return has(FRUGAL_OPTION_DECL_REQUIRED); }
  // A required option the kit can give a valid value from the declaration
  // alone: anything but a string without choices that names no directory.
  [[nodiscard]] bool buildable() const;
};

// The options strategy `strategy_index` of the context's plugin 0 declares
// (`count` of them: frugal_strategy_info.option_count).
std::vector<DeclaredOption> read_declared_options(const frugal_context* context, size_t strategy_index, size_t count);

// A value the kit gives an option: of the declared type, set exactly, or a
// declaration's text as a host would give it (frugal_options_set_parsed).
class Value {
 public:
  static Value of_int(int64_t v);
  static Value of_double(double v);
  static Value of_bool(bool v);
  static Value of_string(std::string v);
  static Value parsed(std::string text);
  frugal_error* set(frugal_options* options, const std::string& name) const;
  // For messages: 11, 1.0000000000000002, true, 'cosine'.
  [[nodiscard]] std::string shown() const;

 private:
  enum class Form { int_value, double_value, bool_value, string_value, parsed_text };
  Form form_ = Form::int_value;
  int64_t int_ = 0;
  double double_ = 0.0;
  std::string text_;
};

// The shortest text that reads back as v.
std::string number_text(double v);

// What the kit gives a required option for one instance: INT 8 and DOUBLE
// 1, moved into the declared range; BOOL false; a string with choices the
// first; a directory option a fresh empty directory made under `tmpdir`
// now (throws std::runtime_error when it cannot be made). nullopt when
// !o.buildable().
std::optional<Value> built_value(const DeclaredOption& o, const std::string& tmpdir);

// Whether an --option gives `key` to `strategy` (by name or through "*").
bool given_by_user(const std::vector<OptionArg>& options, const std::string& strategy, const std::string& key);

// A fresh options object: the built value of each declared required option,
// then the --option values for `strategy` (they win), "{tmpdir}" in them
// replaced by `tmpdir`. `omit` (when not empty) is left out of both. Throws
// std::runtime_error with libfrugal's message.
frugal_options* make_options(const std::vector<OptionArg>& options, const std::string& strategy,
                             const std::string& tmpdir, const std::vector<DeclaredOption>& declared,
                             const std::string& omit = "");

}  // namespace frugal::conformance
