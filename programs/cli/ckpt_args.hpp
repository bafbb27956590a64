// Argument parsing for the `frugal ckpt` subcommands: positionals, value
// flags (`--name value` or `--name=value`) and switches, with usage errors
// thrown as UsageError (exit code 2).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_errors.hpp"

namespace frugal::cli {

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;  // value flags given, by name ("--size")
  std::set<std::string> switches;             // switches given ("--json")

  bool has(const std::string& flag) const { return values.count(flag) != 0 || switches.count(flag) != 0; }
  std::optional<std::string> value(const std::string& flag) const;
};

// Parses `args`. `value_flags` take one value, `switch_flags` none; anything
// else starting with "--" is a UsageError naming what is accepted.
ParsedArgs parse_args(const std::vector<std::string>& args, const std::vector<std::string>& value_flags,
                      const std::vector<std::string>& switch_flags);

// "1048576", "64K", "64M", "1G", "2T", also "64MiB"/"64MB" (binary: K = 1024).
// std::nullopt for anything else, zero included, or on overflow.
std::optional<uint64_t> parse_byte_size(const std::string& text);

// A decimal integer in [min, max]; UsageError naming `flag` otherwise.
int64_t parse_int_flag(const std::string& flag, const std::string& text, int64_t min, int64_t max);

}  // namespace frugal::cli
