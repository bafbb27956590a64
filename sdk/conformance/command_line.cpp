#include "command_line.hpp"

#include <stdexcept>

namespace frugal::conformance {

const char* const kUsage =
    "usage: frugal-conformance [--option STRATEGY.KEY=VALUE]... [--json] [--no-fork] PLUGIN.so\n"
    "\n"
    "Loads PLUGIN.so and checks the contract of every strategy it declares:\n"
    "the descriptor, creation and option checking, NULL and invalid arguments,\n"
    "argument structs of the v1.0 size, larger and too small, state export and\n"
    "import, determinism and thread safety where the strategy promises them,\n"
    "and that host allocations are freed. Prints one PASS/FAIL line per rule.\n"
    "\n"
    "  --option S.K=V  pass option K=V when creating strategy S ('*' for every\n"
    "                  strategy); V is an int, a double, true/false or a string;\n"
    "                  {tmpdir} in V becomes a fresh directory per strategy\n"
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
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      cl.help = true;
    } else if (arg == "--json") {
      cl.json = true;
    } else if (arg == "--no-fork") {
      cl.fork = false;
    } else if (arg == "--option" || arg.rfind("--option=", 0) == 0) {
      std::string value;
      if (arg == "--option") {
        if (i + 1 >= argc) {
          error = "--option needs a value STRATEGY.KEY=VALUE";
          return std::nullopt;
        }
        value = argv[++i];
      } else {
        value = arg.substr(9);
      }
      auto option = parse_option(value);
      if (!option) {
        error = "--option '" + value + "' is not STRATEGY.KEY=VALUE";
        return std::nullopt;
      }
      cl.options.push_back(*option);
    } else if (!arg.empty() && arg[0] == '-') {
      error = "unknown flag '" + arg + "'";
      return std::nullopt;
    } else if (!cl.plugin.empty()) {
      error = "only one plugin may be checked per run (got '" + cl.plugin + "' and '" + arg + "')";
      return std::nullopt;
    } else {
      cl.plugin = arg;
    }
  }
  if (cl.plugin.empty() && !cl.help) {
    error = "no plugin given";
    return std::nullopt;
  }
  return cl;
}

frugal_options* make_options(const std::vector<OptionArg>& options, const std::string& strategy,
                             const std::string& tmpdir, const std::vector<RequiredOption>& required) {
  frugal_options* out = nullptr;
  if (frugal_error* e = frugal_options_create(&out)) {
    const std::string message = frugal_error_message(e);
    frugal_error_destroy(e);
    throw std::runtime_error(message);
  }
  for (const RequiredOption& r : required) {
    if (r.value_text.empty()) continue;
    std::string value = r.value_text;
    for (auto at = value.find("{tmpdir}"); at != std::string::npos; at = value.find("{tmpdir}"))
      value.replace(at, 8, tmpdir);
    frugal_error_destroy(frugal_options_set_parsed(out, r.name.c_str(), value.c_str()));
  }
  for (const OptionArg& o : options) {
    if (o.strategy != "*" && o.strategy != strategy) continue;
    std::string value = o.value;
    for (auto at = value.find("{tmpdir}"); at != std::string::npos; at = value.find("{tmpdir}"))
      value.replace(at, 8, tmpdir);
    if (frugal_error* e = frugal_options_set_parsed(out, o.key.c_str(), value.c_str())) {
      const std::string message = "--option " + o.strategy + "." + o.key + ": " + frugal_error_message(e);
      frugal_error_destroy(e);
      frugal_options_destroy(out);
      throw std::runtime_error(message);
    }
  }
  return out;
}

}  // namespace frugal::conformance
