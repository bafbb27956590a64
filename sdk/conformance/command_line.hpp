// command_line.hpp — what `frugal-conformance` was asked to do.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace frugal::conformance {

// One --option STRATEGY.KEY=VALUE ("*" as STRATEGY: every strategy).
struct OptionArg {
  std::string strategy;
  std::string key;
  std::string value;
};

struct CommandLine {
  std::string plugin;
  std::vector<OptionArg> options;
  bool json = false;
  bool fork = true;
  bool help = false;
};

// Parses argv; on bad usage returns nullopt and sets `error` to a message
// naming the bad argument.
std::optional<CommandLine> parse_command_line(int argc, char** argv, std::string& error);

// The --help text, made from the spec the parser reads (support/args).
std::string usage_text();

// The one line a bad command line prints on stderr (args::usage_error_text).
std::string usage_error_text(const std::string& message);

}  // namespace frugal::conformance
