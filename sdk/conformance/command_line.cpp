#include "command_line.hpp"

#include "command_args.hpp"

namespace frugal::conformance {

const char* const kUsage =
    "usage: frugal-conformance [--option STRATEGY.KEY=VALUE]... [--json] [--no-fork] PLUGIN.so\n"
    "\n"
    "Loads PLUGIN.so and checks the contract of every strategy it declares:\n"
    "the descriptor, creation and option checking, NULL and invalid arguments,\n"
    "argument structs of the v2.0 size, larger and too small, state export and\n"
    "import, determinism and thread safety where the strategy promises them,\n"
    "and that host allocations are freed, and that a strategy's declared options\n"
    "agree with what its create accepts: defaults, bounds and the values\n"
    "just outside them, choices, required options. Prints one PASS/FAIL/SKIP line\n"
    "per rule.\n"
    "\n"
    "Required declared options get a value built from the declaration (min, else\n"
    "1; false; the first choice; a fresh directory); a required string without\n"
    "choices cannot be built: pass it with --option, or the rules that need an\n"
    "instance are skipped.\n"
    "\n"
    "  --option S.K=V  pass option K=V when creating strategy S ('*' for every\n"
    "                  strategy), over any built value; V is an int, a double,\n"
    "                  true/false or a string; {tmpdir} in V becomes a fresh\n"
    "                  directory per strategy\n"
    "  --json          print the report as JSON\n"
    "  --no-fork       check in this process (for a debugger or a sanitizer);\n"
    "                  a crash then ends the run instead of failing one rule\n"
    "  --help          print this text\n"
    "\n"
    "Exit status: 0 every rule passed, 1 a rule failed, 2 bad usage.\n";

namespace {

std::optional<OptionArg> parse_option(const std::string& text) {
  const auto eq = text.find('=');
  const auto dot = text.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq || dot == 0 || dot + 1 == eq)
    return std::nullopt;
  return OptionArg{text.substr(0, dot), text.substr(dot + 1, eq - dot - 1), text.substr(eq + 1)};
}

}  // namespace

std::optional<CommandLine> parse_command_line(int argc, char** argv, std::string& error) {
  CommandLine cl;
  try {
    // The tools' one parser (sdk/args) splits the line and words its errors.
    const auto parsed =
        args::parse(std::vector<std::string>(argv + 1, argv + argc), {{}, {"--json", "--no-fork"}, {"--option"}});
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

}  // namespace frugal::conformance
