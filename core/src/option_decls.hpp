// The options a strategy declares (frugal_strategy_options_ext):
// read and validated once at load, then used to check a host's options
// before create and to answer frugal_context_strategy_option. Internal to
// libfrugal.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frugal/plugin.h"

namespace frugal {

// One validated declaration, copied out of the plugin.
struct OptionDecl {
  std::string name;
  int32_t type = 0;
  uint32_t flags = 0;
  std::optional<std::string> default_value;
  double min = 0.0;
  double max = 0.0;
  std::optional<std::string> choices;  // '|'-separated, as declared
  std::string doc;
};

// Reads the options extension from a strategy's chain. nullopt when the
// chain has none (the strategy declares nothing; the core checks nothing).
// `owner` names the strategy in errors ("plugin 'x.so': schedule strategy
// 'cosine'"). Throws PLUGIN_INVALID for a malformed chain or declaration.
std::optional<std::vector<OptionDecl>> read_option_decls(const frugal_ext_header* chain, const std::string& owner);

// Checks `options` (NULL: none given) against a strategy's declarations
// before its create runs: unknown names, types, choices and required
// options (INVALID_ARGUMENT), ranges (OUT_OF_RANGE). Messages start with
// `label` ("schedule 'cosine'") and name the option, the value, the allowed
// values and the option's doc. A strategy that declares nothing (nullopt)
// is left to check its options itself.
void check_declared_options(const std::optional<std::vector<OptionDecl>>& decls, const frugal_options* options,
                            const std::string& label);

}  // namespace frugal
