#include "command_args.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>

namespace frugal::args {
namespace {

const Option* find_option(const Spec& spec, const std::string& flag) {
  const auto it =
      std::find_if(spec.options.begin(), spec.options.end(), [&](const Option& option) { return option.flag == flag; });
  return it == spec.options.end() ? nullptr : &*it;
}

bool is_help(const std::string& arg) { return arg == "--help" || arg == "-h"; }

// "-x", "--x": a word that names a flag ("-" alone is a positional, e.g. stdin).
bool looks_like_flag(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }

// The visible flags in declaration order, as the help text lists them.
std::string accepted_list(const Spec& spec) {
  std::string out;
  for (const auto& option : spec.options) {
    if (option.hidden) continue;
    out += (out.empty() ? "" : ", ") + option.flag;
    if (!option.value_name.empty()) out += " " + option.value_name + (option.repeatable ? "..." : "");
  }
  return out.empty() ? "--help" : out + ", --help";
}

// The checks CLI11 words differently or does not make: it would take the
// next flag as a value and has its own messages for unknown flags and
// missing values. First error in command-line order wins.
void check_words(const std::vector<std::string>& args, const Spec& spec) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") return;
    if (!looks_like_flag(arg) || is_help(arg)) continue;
    const size_t eq = arg.find('=');
    const std::string flag = arg.substr(0, eq);
    const Option* option = find_option(spec, flag);
    if (option != nullptr && !option->value_name.empty()) {
      if (eq != std::string::npos) continue;
      if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0) throw UsageError(flag + " needs a value");
      ++i;
    } else if (option != nullptr) {
      if (eq != std::string::npos) throw UsageError(flag + " takes no value");
    } else {
      throw UsageError("unknown argument '" + arg + "' (accepted: " + accepted_list(spec) + ")");
    }
  }
}

}  // namespace

std::optional<std::string> ParsedArgs::value(const std::string& flag) const {
  const auto it = values.find(flag);
  if (it == values.end() || it->second.empty()) return std::nullopt;
  return it->second.front();
}

std::vector<std::string> ParsedArgs::all(const std::string& flag) const {
  const auto it = values.find(flag);
  return it == values.end() ? std::vector<std::string>{} : it->second;
}

ParsedArgs parse(const std::vector<std::string>& args, const Spec& spec) {
  ParsedArgs parsed;
  for (const auto& arg : args) {
    if (arg == "--") break;
    if (is_help(arg)) {
      parsed.help = true;
      return parsed;
    }
  }
  check_words(args, spec);

  CLI::App app;
  app.allow_extras(false);
  std::vector<std::pair<const Option*, CLI::Option*>> value_options;
  std::vector<std::pair<const Option*, CLI::Option*>> switch_options;
  for (const auto& option : spec.options) {
    if (option.value_name.empty())
      switch_options.emplace_back(&option, app.add_flag(option.flag));
    else
      value_options.emplace_back(
          &option, app.add_option(option.flag)->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll));
  }
  app.add_option("positional", parsed.positional)->expected(0, -1);

  // CLI11 wants argv order reversed (it pops from the back).
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    // check_words catches what a caller can get wrong; this is a fallback
    // so that nothing CLI11 refuses escapes as another kind of error.
    throw UsageError(e.what());
  }
  for (const auto& [option, cli] : value_options) {
    if (cli->count() == 0) continue;
    if (cli->count() > 1 && !option->repeatable) throw UsageError(option->flag + " given twice");
    parsed.values[option->flag] = cli->results();
  }
  for (const auto& [option, cli] : switch_options) {
    if (cli->count() > 1) throw UsageError(option->flag + " given twice");
    if (cli->count() == 1) parsed.switches.insert(option->flag);
  }
  return parsed;
}

}  // namespace frugal::args
