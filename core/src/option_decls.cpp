// Option declarations of strategies: validation at load (a declaration the
// core would misread refuses the plugin) and the checks of a host's
// options against them before create.
#include "option_decls.hpp"

#include <cmath>
#include <cstring>
#include <set>
#include <string_view>
#include <tuple>

#include "error.hpp"
#include "frugal/error.h"
#include "frugal/options.h"
#include "frugal/sdk/option_decl.hpp"
#include "options.hpp"
#include "sized_structs.hpp"

namespace frugal {
namespace {

using sdk::int_bound;
using sdk::split_choices;

constexpr size_t kMaxChainLinks = 64;
constexpr size_t kMaxDeclaredOptions = 256;
constexpr uint32_t kBoundFlags = FRUGAL_OPTION_DECL_HAS_MIN | FRUGAL_OPTION_DECL_HAS_MAX;

std::optional<std::string> copy_text(const char* value, const std::string& owner, std::string_view field) {
  if (value == nullptr) return std::nullopt;
  const size_t length = strnlen(value, kMaxPluginStringLength + 1);
  if (length > kMaxPluginStringLength)
    fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: option {} is longer than {} bytes", owner, field, kMaxPluginStringLength);
  return std::string(value, length);
}

std::string range_text(const OptionDecl& d) {
  const bool lo = d.flags & FRUGAL_OPTION_DECL_HAS_MIN;
  const bool hi = d.flags & FRUGAL_OPTION_DECL_HAS_MAX;
  if (d.type == FRUGAL_OPTION_INT) {
    if (lo && hi) return fmt::format("[{}, {}]", int_bound(d.min), int_bound(d.max));
    return lo ? fmt::format(">= {}", int_bound(d.min)) : fmt::format("<= {}", int_bound(d.max));
  }
  if (lo && hi) return fmt::format("[{}, {}]", d.min, d.max);
  return lo ? fmt::format(">= {}", d.min) : fmt::format("<= {}", d.max);
}

std::string value_text(const frugal_options::Entry& e) {
  switch (e.type) {
    case FRUGAL_OPTION_INT: return std::to_string(e.int_value);
    case FRUGAL_OPTION_DOUBLE: return fmt::format("{}", e.double_value);
    case FRUGAL_OPTION_BOOL: return e.int_value != 0 ? "true" : "false";
    case FRUGAL_OPTION_COMM: return "a comm";
    default: return "'" + e.string_value + "'";
  }
}

std::string choices_text(const std::string& choices) {
  std::string out;
  for (const auto choice : split_choices(choices)) out += fmt::format("{}'{}'", out.empty() ? "" : ", ", choice);
  return out;
}

// Checks one given value against its declaration; `where` prefixes errors.
void check_value(const OptionDecl& d, const frugal_options::Entry& e, const std::string& where) {
  const bool type_ok = e.type == d.type || (d.type == FRUGAL_OPTION_DOUBLE && e.type == FRUGAL_OPTION_INT);
  if (!type_ok)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}option '{}' = {} has type {}; expected {} ({})", where, d.name, value_text(e),
         option_type_name(e.type), option_type_name(d.type), d.doc);
  if (d.flags & kBoundFlags) {
    bool inside = true;
    if (d.type == FRUGAL_OPTION_INT) {
      inside = !((d.flags & FRUGAL_OPTION_DECL_HAS_MIN) && e.int_value < int_bound(d.min)) &&
               !((d.flags & FRUGAL_OPTION_DECL_HAS_MAX) && e.int_value > int_bound(d.max));
    } else {
      const double v = e.type == FRUGAL_OPTION_INT ? static_cast<double>(e.int_value) : e.double_value;
      inside = !std::isnan(v) && !((d.flags & FRUGAL_OPTION_DECL_HAS_MIN) && v < d.min) &&
               !((d.flags & FRUGAL_OPTION_DECL_HAS_MAX) && v > d.max);
    }
    if (!inside)
      fail(FRUGAL_ERR_OUT_OF_RANGE, "{}option '{}' = {} is out of range: must be {} ({})", where, d.name, value_text(e),
           range_text(d), d.doc);
  }
  if (d.choices) {
    bool found = false;
    for (const auto choice : split_choices(*d.choices)) found = found || choice == e.string_value;
    if (!found)
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}option '{}' = {} is not one of {} ({})", where, d.name, value_text(e),
           choices_text(*d.choices), d.doc);
  }
}

// Copies and validates one declaration.
OptionDecl adopt_decl(const frugal_option_decl* raw, size_t index, const std::string& owner) {
  if (raw == nullptr) fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: options[{}] is NULL", owner, index);
  size_t producer_size = 0;
  std::memcpy(&producer_size, raw, sizeof(size_t));
  if (producer_size < sizeof(frugal_option_decl))
    fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: options[{}] struct_size is {} bytes; at least {} are required", owner, index,
         producer_size, sizeof(frugal_option_decl));
  const frugal_option_decl raw_decl = read_sized(raw);
  OptionDecl d;
  const auto name = copy_text(raw_decl.name, owner, fmt::format("[{}] name", index));
  if (!name) fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: options[{}] has a NULL name", owner, index);
  d.name = *name;
  const std::string where = fmt::format("{}: option '{}'", owner, d.name);
  d.type = raw_decl.type;
  d.flags = raw_decl.flags;
  d.min = raw_decl.min;
  d.max = raw_decl.max;
  d.default_value = copy_text(raw_decl.default_value, owner, "default_value of '" + d.name + "'");
  d.choices = copy_text(raw_decl.choices, owner, "choices of '" + d.name + "'");
  const auto doc = copy_text(raw_decl.doc, owner, "doc of '" + d.name + "'");
  if (!doc) fail(FRUGAL_ERR_PLUGIN_INVALID, "{} has a NULL doc (one line is required)", where);
  if (doc->find_first_of("\r\n") != std::string::npos)
    fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: doc must be one line, without a newline", where);
  d.doc = *doc;

  if (d.type < FRUGAL_OPTION_INT || d.type > FRUGAL_OPTION_COMM)
    fail(FRUGAL_ERR_PLUGIN_INVALID, "{} has type {}, not a frugal_option_type_values value", where, d.type);
  const bool numeric = d.type == FRUGAL_OPTION_INT || d.type == FRUGAL_OPTION_DOUBLE;
  if ((d.flags & kBoundFlags) && !numeric)
    fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: a {} option cannot have min or max", where, option_type_name(d.type));
  for (const auto& [flag, bound, side] :
       {std::tuple{FRUGAL_OPTION_DECL_HAS_MIN, d.min, "min"}, std::tuple{FRUGAL_OPTION_DECL_HAS_MAX, d.max, "max"}}) {
    if (!(d.flags & flag)) continue;
    if (std::isnan(bound)) fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: {} is NaN", where, side);
    if (d.type == FRUGAL_OPTION_INT && std::isfinite(bound) && bound != std::floor(bound))
      fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: {} {} of an int option is not an integer", where, side, bound);
  }
  if ((d.flags & FRUGAL_OPTION_DECL_HAS_MIN) && (d.flags & FRUGAL_OPTION_DECL_HAS_MAX) && d.min > d.max)
    fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: min {} is greater than max {}", where, d.min, d.max);
  if (d.choices && d.type != FRUGAL_OPTION_STRING)
    fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: choices apply to string options only", where);
  if (d.choices)
    for (const auto choice : split_choices(*d.choices))
      if (choice.empty()) fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: choices '{}' has an empty entry", where, *d.choices);
  if (d.type == FRUGAL_OPTION_COMM && d.default_value)
    fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: a comm option cannot have a default", where);
  if ((d.flags & FRUGAL_OPTION_DECL_REQUIRED) && d.default_value)
    fail(FRUGAL_ERR_PLUGIN_INVALID, "{} is required and has a default ('{}'): give one or the other", where,
         *d.default_value);

  // The name grammar and the default's spelling are exactly what the
  // options API accepts: let it judge both.
  frugal_options parsed;
  frugal_error* error = frugal_options_set_parsed(&parsed, d.name.c_str(), d.default_value.value_or("0").c_str());
  if (error != nullptr) {
    const std::string message = frugal_error_message(error);
    frugal_error_destroy(error);
    fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: options[{}]: {}", owner, index, message);
  }
  if (d.default_value) {
    try {
      check_value(d, parsed.entries.front(), "default: ");
    } catch (const Error& e) {
      fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: default '{}' does not fit the declaration: {}", where, *d.default_value,
           e.what());
    }
  }
  return d;
}

}  // namespace

std::optional<std::vector<OptionDecl>> read_option_decls(const frugal_ext_header* chain, const std::string& owner) {
  std::optional<std::vector<OptionDecl>> decls;
  size_t links = 0;
  for (const frugal_ext_header* link = chain; link != nullptr; link = link->next) {
    if (++links > kMaxChainLinks)
      fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: extension chain is longer than {} links (a cycle?)", owner, kMaxChainLinks);
    if (link->type != FRUGAL_EXT_STRATEGY_OPTIONS) continue;  // a type this core does not know
    if (decls) fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: the extension chain holds two option declarations", owner);
    if (link->struct_size < sizeof(frugal_strategy_options_ext))
      fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: options extension struct_size is {} bytes; at least {} are required", owner,
           link->struct_size, sizeof(frugal_strategy_options_ext));
    const auto* ext = reinterpret_cast<const frugal_strategy_options_ext*>(link);
    if (ext->option_count > kMaxDeclaredOptions)
      fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: option_count {} exceeds the limit of {}", owner, ext->option_count,
           kMaxDeclaredOptions);
    if (ext->option_count > 0 && ext->options == nullptr)
      fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: option_count is {} but options is NULL", owner, ext->option_count);
    decls.emplace();
    std::set<std::string> seen;
    for (size_t i = 0; i < ext->option_count; ++i) {
      decls->push_back(adopt_decl(ext->options[i], i, owner));
      if (!seen.insert(decls->back().name).second)
        fail(FRUGAL_ERR_PLUGIN_INVALID, "{}: option '{}' is declared twice", owner, decls->back().name);
    }
  }
  return decls;
}

void check_declared_options(const std::optional<std::vector<OptionDecl>>& declared, const frugal_options* options,
                            const std::string& label) {
  if (!declared) return;
  const auto& decls = *declared;
  const std::string where = label + ": ";
  if (options != nullptr) {
    for (const auto& e : options->entries) {
      const OptionDecl* decl = nullptr;
      for (const auto& d : decls)
        if (d.name == e.name) decl = &d;
      if (decl == nullptr) {
        std::string accepted;
        for (const auto& d : decls) accepted += fmt::format("{}{}", accepted.empty() ? "" : ", ", d.name);
        fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}unknown option '{}' (accepted: {})", where, e.name,
             accepted.empty() ? "none" : accepted);
      }
      check_value(*decl, e, where);
    }
  }
  for (const auto& d : decls)
    if ((d.flags & FRUGAL_OPTION_DECL_REQUIRED) && frugal_options_type(options, d.name.c_str()) == 0)
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}option '{}' is required ({})", where, d.name, d.doc);
}

}  // namespace frugal
