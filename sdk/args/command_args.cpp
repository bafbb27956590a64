#include "command_args.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>

namespace frugal::args {
namespace {

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

bool is_help(const std::string& arg) { return arg == "--help" || arg == "-h"; }

// "-x", "--x": a word that names a flag ("-" alone is a positional, e.g. stdin).
bool looks_like_flag(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }

std::string accepted_list(const Spec& spec) {
  std::string out;
  for (const auto& flag : spec.value_flags) out += (out.empty() ? "" : ", ") + flag + " VALUE";
  for (const auto& flag : spec.repeatable_flags) out += (out.empty() ? "" : ", ") + flag + " VALUE...";
  for (const auto& flag : spec.switch_flags) out += (out.empty() ? "" : ", ") + flag;
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
    const bool takes_value = contains(spec.value_flags, flag) || contains(spec.repeatable_flags, flag);
    if (takes_value) {
      if (eq != std::string::npos) continue;
      if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0) throw UsageError(flag + " needs a value");
      ++i;
    } else if (contains(spec.switch_flags, flag)) {
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
  std::vector<std::pair<std::string, CLI::Option*>> value_options;
  std::vector<std::pair<std::string, CLI::Option*>> switch_options;
  for (const auto* list : {&spec.value_flags, &spec.repeatable_flags})
    for (const auto& flag : *list)
      value_options.emplace_back(
          flag, app.add_option(flag)->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll));
  for (const auto& flag : spec.switch_flags) switch_options.emplace_back(flag, app.add_flag(flag));
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
  for (const auto& [flag, option] : value_options) {
    if (option->count() == 0) continue;
    if (option->count() > 1 && !contains(spec.repeatable_flags, flag)) throw UsageError(flag + " given twice");
    parsed.values[flag] = option->results();
  }
  for (const auto& [flag, option] : switch_options) {
    if (option->count() > 1) throw UsageError(flag + " given twice");
    if (option->count() == 1) parsed.switches.insert(flag);
  }
  return parsed;
}

}  // namespace frugal::args
