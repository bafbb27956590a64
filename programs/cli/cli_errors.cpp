#include "cli_errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <new>

#include "commands.hpp"
#include "frugal/sdk/host.hpp"
#include "help_text.hpp"
#include "json_text.hpp"
#include "terminal_text.hpp"

namespace frugal::cli {

bool is_help(const std::string& arg) { return arg == "--help" || arg == "-h"; }

bool has_word(const std::vector<std::string>& args, const std::string& flag) {
  return std::find(args.begin(), args.end(), flag) != args.end();
}

bool wants_help(const std::vector<std::string>& args) { return std::any_of(args.begin(), args.end(), is_help); }

int print_help(const args::Spec& spec) {
  fmt::print("{}", args::help_text(spec));
  return kExitOk;
}

int report_error(const std::string& command, const std::string& code, const std::string& message, int exit_code,
                 bool json) {
  if (json) {
    const json::Json error = {
        {"command", command}, {"error", {{"code", code}, {"message", message}}}, {"exit_code", exit_code}};
    fmt::print("{}\n", json::json_text(error, -1));
  }
  if (exit_code == kExitUsage)
    fmt::print(stderr, "{}", args::usage_error_text("frugal " + command, terminal_text(message)));
  else
    fmt::print(stderr, "frugal {}: {} ({})\n", command, terminal_text(message), code);
  return exit_code;
}

int run_reporting_errors(const std::string& command, bool json, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    return report_error(command, "USAGE", e.what(), kExitUsage, json);
  } catch (const Problem& e) {
    return report_error(command, e.code(), e.what(), kExitProblem, json);
  } catch (const host::Exception& e) {
    return report_error(command, frugal_error_code_name(e.code()), e.what(), kExitProblem, json);
  } catch (const std::bad_alloc&) {
    return report_error(command, "OUT_OF_MEMORY", "out of memory", kExitProblem, json);
  } catch (const std::exception& e) {
    return report_error(command, "INTERNAL", e.what(), kExitProblem, json);
  }
}

}  // namespace frugal::cli
