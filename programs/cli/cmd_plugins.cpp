// `frugal plugins [--json] [--options]`: every plugin discovered, with its
// strategies (and with --options the options each declares), and every
// file that failed to load with the reason. Exit code 1 when any file
// failed, so scripts notice; the good plugins are listed regardless.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "ckpt_args.hpp"
#include "cli_errors.hpp"
#include "commands.hpp"
#include "frugal/sdk/host.hpp"
#include "json_text.hpp"
#include "plugin_options.hpp"

namespace frugal::cli {
namespace {

struct PluginRow {
  frugal_plugin_info info{};
  std::vector<frugal_strategy_info> strategies;
  std::vector<std::vector<frugal_option_info>> options;  // per strategy, with --options
};
struct Listing {
  std::vector<PluginRow> plugins;
  std::vector<frugal_load_failure_info> failures;
};

Listing collect(frugal_context* context, bool with_options) {
  Listing listing;
  for (size_t p = 0; p < frugal_context_plugin_count(context); ++p) {
    PluginRow row;
    row.info.struct_size = sizeof(row.info);
    host::check(frugal_context_plugin_info(context, p, &row.info));
    for (size_t s = 0; s < row.info.strategy_count; ++s) {
      frugal_strategy_info strategy{};
      strategy.struct_size = sizeof(strategy);
      host::check(frugal_context_strategy_info(context, p, s, &strategy));
      row.strategies.push_back(strategy);
      if (with_options) row.options.push_back(strategy_options(context, p, s, strategy.option_count));
    }
    listing.plugins.push_back(std::move(row));
  }
  for (size_t f = 0; f < frugal_context_load_failure_count(context); ++f) {
    frugal_load_failure_info failure{};
    failure.struct_size = sizeof(failure);
    host::check(frugal_context_load_failure(context, f, &failure));
    listing.failures.push_back(failure);
  }
  return listing;
}

void print_json(const Listing& listing) {
  json::Json plugins = json::Json::array();
  for (const auto& row : listing.plugins) {
    const auto& info = row.info;
    json::Json strategies = json::Json::array();
    for (size_t s = 0; s < row.strategies.size(); ++s) {
      const auto& st = row.strategies[s];
      json::Json strategy = {{"kind", frugal_strategy_kind_name(st.kind)},
                             {"name", st.name},
                             {"summary", st.summary},
                             {"thread_safe", (st.flags & FRUGAL_STRATEGY_THREAD_SAFE) != 0},
                             {"deterministic", (st.flags & FRUGAL_STRATEGY_DETERMINISTIC) != 0},
                             {"shadowed", st.shadowed != 0}};
      if (!row.options.empty()) strategy["options"] = options_json(row.options[s]);
      strategies.push_back(std::move(strategy));
    }
    plugins.push_back({{"name", info.name},
                       {"version", info.version},
                       {"vendor", info.vendor},
                       {"license", info.license},
                       {"path", info.path},
                       {"abi", fmt::format("{}.{}", info.abi_major, info.abi_minor)},
                       {"strategies", std::move(strategies)}});
  }
  json::Json failures = json::Json::array();
  for (const auto& failure : listing.failures)
    failures.push_back(
        {{"path", failure.path}, {"code", frugal_error_code_name(failure.code)}, {"error", failure.message}});
  const json::Json out = {{"plugins", std::move(plugins)}, {"failures", std::move(failures)}};
  fmt::print("{}\n", json::json_text(out));
}

void print_table(const Listing& listing) {
  if (listing.plugins.empty()) fmt::print("no plugins found\n");
  for (const auto& row : listing.plugins) {
    fmt::print("{} {}  ({}, {}, ABI {}.{})\n  {}\n", row.info.name, row.info.version, row.info.vendor, row.info.license,
               row.info.abi_major, row.info.abi_minor, row.info.path);
    for (size_t s = 0; s < row.strategies.size(); ++s) {
      const auto& st = row.strategies[s];
      fmt::print("    {:<10} {:<16} {}{}\n", frugal_strategy_kind_name(st.kind), st.name, st.summary,
                 st.shadowed != 0 ? fmt::format("  [shadowed: use {}/{}]", row.info.name, st.name) : "");
      if (!row.options.empty()) fmt::print("{}", options_table(row.options[s], "        "));
    }
  }
  if (!listing.failures.empty()) {
    fmt::print("\nfailed to load:\n");
    for (const auto& failure : listing.failures)
      fmt::print("  {}\n    {}: {}\n", failure.path, frugal_error_code_name(failure.code), failure.message);
  }
}

void silent_log(void*, int32_t, const char*, const char*) {}

}  // namespace

const args::Spec& plugins_spec() {
  static const args::Spec spec{
      "frugal plugins",
      "every plugin found, its strategies (with --options, the options each declares), and every file that failed "
      "to load",
      "Every plugin found (FRUGAL_PLUGIN_PATH, then the built-in and system plugin directories), its strategies, and "
      "every file that failed to load with the reason. Exit codes: 0 every file loaded, 1 some file failed to load "
      "(listed), 2 bad usage.",
      {},
      {args::switch_flag("--json",
                         "the same as a JSON object on stdout (with --options, an \"options\" array per "
                         "strategy)"),
       args::switch_flag("--options",
                         "also each strategy's declared options: name, type, default or \"required\", "
                         "range, choices, doc; \"(none declared)\" for a strategy that declares none or "
                         "does not declare its options")}};
  return spec;
}

int cmd_plugins(const std::vector<std::string>& args) {
  const bool json_error = has_word(args, "--json");
  ParsedArgs parsed;
  try {
    parsed = parse_args(args, plugins_spec());
  } catch (const UsageError& e) {
    return report_error("plugins", "USAGE", e.what(), kExitUsage, json_error);
  }
  if (parsed.help) return print_help(plugins_spec());
  if (!parsed.positional.empty())
    return report_error("plugins", "USAGE", fmt::format("takes no positional argument, got '{}'", parsed.positional[0]),
                        kExitUsage, json_error);
  const bool json = parsed.has("--json");
  const bool with_options = parsed.has("--options");
  auto context = host::make_context();
  // Failures are reported in the listing itself; no duplicate log lines.
  host::check(frugal_context_set_log_callback(context.get(), &silent_log, nullptr, FRUGAL_LOG_OFF));
  host::check(frugal_context_discover_plugins(context.get(), 0, nullptr));
  const Listing listing = collect(context.get(), with_options);
  if (json)
    print_json(listing);
  else
    print_table(listing);
  return listing.failures.empty() ? kExitOk : kExitProblem;
}

}  // namespace frugal::cli
