// The command line of a small program (a bench) in one call: parse argv
// against the Spec, answer --help with the help text (exit 0), a usage
// error with its one line on stderr (usage_error_text, exit 2), else run.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "command_args.hpp"

namespace frugal::args {

// Parses argv[1..argc) against `spec` and returns run(parsed)'s exit code;
// a UsageError that `run` throws (a value it refuses) is a usage error too.
int program_main(int argc, char** argv, const Spec& spec, const std::function<int(const ParsedArgs&)>& run);

// The integer value of `flag` in [min, max], or `fallback` when not given;
// UsageError "--rows must be an integer from 1 to 65536, got 'x'" otherwise.
int64_t int_value(const ParsedArgs& parsed, const std::string& flag, int64_t fallback, int64_t min, int64_t max);

// The same check of one text (the words of the message are the same).
int64_t parse_int(const std::string& flag, const std::string& text, int64_t min, int64_t max);

}  // namespace frugal::args
