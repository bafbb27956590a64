// The options a strategy declares (frugal_context_strategy_option)
// as `frugal plugins --options` shows them: a table under the strategy's
// line, or a JSON array.
#pragma once

#include <string>
#include <vector>

#include "frugal/frugal.h"
#include "json_text.hpp"

namespace frugal::cli {

// The `count` options (frugal_strategy_info.option_count) of strategy
// `strategy` of plugin `plugin`; their strings live as long as `context`.
std::vector<frugal_option_info> strategy_options(const frugal_context* context, size_t plugin, size_t strategy,
                                                 size_t count);

// Table lines, each starting with `indent`: a header, then one row per
// option (name, type, default or "required", range, choices, doc), or
// "(none declared)": the ABI does not tell a strategy that declares an
// empty list from one that declares nothing.
std::string options_table(const std::vector<frugal_option_info>& options, const std::string& indent);

// [{"name", "type", "required", "default" (text or null), "min", "max"
// (numbers or null), "choices" (array or null), "directory", "doc"}, ...].
json::Json options_json(const std::vector<frugal_option_info>& options);

}  // namespace frugal::cli
