// How every `frugal` command reports bad usage and problems, so all of
// them behave alike: `--help` (or -h) anywhere prints the command's usage
// on stdout and exits 0; an error is one line on stderr (bad usage with a
// pointer to the command's --help, exit 2; a problem with its code, exit
// 1); under --json the same error is also a JSON object on stdout, so a
// script reading stdout always gets JSON.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "command_args.hpp"

namespace frugal::cli {

// Bad command line (exit kExitUsage); the parser (support/args) throws it too.
using UsageError = args::UsageError;

// A problem the command found before it could do its work (exit
// kExitProblem), with the error code name reported under --json.
class Problem : public std::runtime_error {
 public:
  Problem(std::string code, const std::string& message) : std::runtime_error(message), code_(std::move(code)) {}
  [[nodiscard]] [[nodiscard]] const std::string& code() const { return code_; }

 private:
  std::string code_;
};

// True for "--help" and "-h".
bool is_help(const std::string& arg);
// True when `args` holds `flag` (e.g. "--json", "--help") as a word of its own.
bool has_word(const std::vector<std::string>& args, const std::string& flag);
bool wants_help(const std::vector<std::string>& args);

// Prints `spec`'s help text (support/args/help_text.hpp) on stdout; returns kExitOk.
int print_help(const args::Spec& spec);

// Reports an error of `command` ("pack", "ckpt ls") as the header says and
// returns `exit_code`. `code` is a frugal error code name, or "USAGE".
int report_error(const std::string& command, const std::string& code, const std::string& message, int exit_code,
                 bool json);

// Runs `body` (the command's work) and turns what it throws into
// report_error: UsageError, Problem, a frugal error, or anything else
// (an allocation that failed, a bug) as one line, never an abort.
int run_reporting_errors(const std::string& command, bool json, const std::function<int()>& body);

}  // namespace frugal::cli
