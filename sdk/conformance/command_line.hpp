// command_line.hpp — what `frugal-conformance` was asked to do.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "frugal/frugal.h"

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

extern const char* const kUsage;

// A fresh options object with the --option values for `strategy`, "{tmpdir}"
// replaced by `tmpdir`. Throws std::runtime_error with libfrugal's message.
// A required option as the strategy declares it (frugal_option_info), with
// the value the kit gives it: the default, else min, else max, else the
// first choice; a directory option gets tmpdir/<name>, a bool false, any
// other number 1. value_text empty: no value can be built.
struct RequiredOption {
  std::string name;
  std::string value_text;
};

// The declared required options of a strategy, then the --option values
// for it (they win), {tmpdir} replaced (throws std::runtime_error).
frugal_options* make_options(const std::vector<OptionArg>& options, const std::string& strategy,
                             const std::string& tmpdir, const std::vector<RequiredOption>& required = {});

}  // namespace frugal::conformance
