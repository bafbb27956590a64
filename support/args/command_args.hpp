// One command-line parser for every frugal program (CLI11 underneath), so
// that all of them split arguments alike and word usage errors alike:
//   unknown argument '--yaml' (accepted: --out DIR, --json, --help)
//   --out needs a value            (also for `--out --quick`: a value never
//                                   starts with "--")
//   --out given twice              (unless the flag is repeatable)
//   --json takes no value          (`--json=yes`)
// Values are `--name value` or `--name=value`; "--" ends the flags. The
// values themselves are the caller's to check. Not thread-safe per call
// only in the sense that nothing is shared: calls are independent. What a
// command accepts is its Spec (command_spec.hpp); its --help text is made
// from the same Spec (help_text.hpp).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "command_spec.hpp"

namespace frugal::args {

// Bad command line: the message names the argument at fault.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> values;  // value flags given, by name ("--size")
  std::set<std::string> switches;                          // switches given ("--json")
  bool help = false;                                       // --help or -h before any "--": the caller prints its usage

  [[nodiscard]] bool has(const std::string& flag) const { return values.count(flag) != 0 || switches.count(flag) != 0; }
  // The value of a once-only value flag, nullopt when not given.
  [[nodiscard]] std::optional<std::string> value(const std::string& flag) const;
  // Every value of a (repeatable) value flag, in command-line order.
  [[nodiscard]] std::vector<std::string> all(const std::string& flag) const;
};

// Parses `args` (the words after the program or subcommand name) against
// `spec`'s options (hidden ones too); throws UsageError as the header says. With help set, nothing
// else is checked.
ParsedArgs parse(const std::vector<std::string>& args, const Spec& spec);

}  // namespace frugal::args
