// Argument parsing for the `frugal` commands: the tools' one parser
// (support/args) with usage errors thrown as UsageError (exit code 2), and the
// value checks the commands share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli_errors.hpp"

namespace frugal::cli {

using args::ParsedArgs;

// Parses `args` against the command's spec (its --help is made from the
// same spec); anything else starting with "-" is a UsageError naming what
// is accepted.
inline ParsedArgs parse_args(const std::vector<std::string>& args, const args::Spec& spec) {
  return args::parse(args, spec);
}

// "1048576", "64K", "64M", "1G", "2T", also "64MiB"/"64MB" (binary: K = 1024).
// std::nullopt for anything else, zero included, or on overflow.
std::optional<uint64_t> parse_byte_size(const std::string& text);

// A decimal integer in [min, max]; UsageError naming `flag` otherwise.
int64_t parse_int_flag(const std::string& flag, const std::string& text, int64_t min, int64_t max);

}  // namespace frugal::cli
