#include "command_line.hpp"

#include "command_args.hpp"
#include "help_text.hpp"

namespace frugal::conformance {

namespace {

const args::Spec& command_line_spec() {
  static const args::Spec spec{
      "frugal-conformance",
      "checks the contract of every strategy a plugin declares",
      "Loads PLUGIN.so and checks the contract of every strategy it declares: the descriptor, creation and option "
      "checking, NULL and invalid arguments, argument structs of the v2.0 size, larger and too small, state export "
      "and import, determinism and thread safety where the strategy promises them, and that host allocations are "
      "freed, and that a strategy's declared options agree with what its create accepts: defaults, bounds and the "
      "values just outside them, choices, required options. Prints one PASS/FAIL/SKIP line per rule.\n\n"
      "Required declared options get a value built from the declaration (min, else 1; false; the first choice; a "
      "fresh directory); a required string without choices cannot be built: pass it with --option, or the rules "
      "that need an instance are skipped.\n\n"
      "Exit status: 0 every rule passed, 1 a rule failed, 2 bad usage.",
      {{"PLUGIN.so", "the plugin to check"}},
      {args::repeatable(args::value_flag(
           "--option", "S.K=V",
           "pass option K=V when creating strategy S ('*' for every strategy), over any built value; V is an int, a "
           "double, true/false or a string; {tmpdir} in V becomes a fresh directory per strategy")),
       args::switch_flag("--json", "print the report as JSON"),
       args::switch_flag("--no-fork",
                         "check in this process (for a debugger or a sanitizer); a crash then ends the "
                         "run instead of failing one rule")}};
  return spec;
}

std::optional<OptionArg> parse_option(const std::string& text) {
  const auto eq = text.find('=');
  const auto dot = text.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq || dot == 0 || dot + 1 == eq) return std::nullopt;
  return OptionArg{text.substr(0, dot), text.substr(dot + 1, eq - dot - 1), text.substr(eq + 1)};
}

}  // namespace

std::optional<CommandLine> parse_command_line(int argc, char** argv, std::string& error) {
  CommandLine cl;
  try {
    // The tools' one parser (support/args) splits the line and words its errors.
    const auto parsed = args::parse(std::vector<std::string>(argv + 1, argv + argc), command_line_spec());
    cl.help = parsed.help;
    if (cl.help) return cl;
    cl.json = parsed.has("--json");
    cl.fork = !parsed.has("--no-fork");
    for (const auto& value : parsed.all("--option")) {
      auto option = parse_option(value);
      if (!option) throw args::UsageError("--option '" + value + "' is not STRATEGY.KEY=VALUE");
      cl.options.push_back(*option);
    }
    if (parsed.positional.size() > 1)
      throw args::UsageError("only one plugin may be checked per run (got '" + parsed.positional[0] + "' and '" +
                             parsed.positional[1] + "')");
    if (parsed.positional.empty()) throw args::UsageError("no plugin given");
    cl.plugin = parsed.positional.front();
  } catch (const args::UsageError& e) {
    error = e.what();
    return std::nullopt;
  }
  return cl;
}

std::string usage_text() { return args::help_text(command_line_spec()); }

std::string usage_error_text(const std::string& message) {
  return args::usage_error_text(command_line_spec(), message);
}

}  // namespace frugal::conformance
