// What a program or subcommand accepts on its command line, and the words
// that describe it: the one description both the parser (command_args.hpp)
// and the help text (help_text.hpp) are made from, so that --help can never
// list a flag the parser refuses or miss one it accepts.
#pragma once

#include <string>
#include <vector>

namespace frugal::args {

// One flag. A flag with a value name takes a value ("--size BYTES"); one
// without is a switch ("--json").
struct Option {
  std::string flag;              // the long name, "--size"
  std::string value_name = {};   // "BYTES"; empty: a switch
  std::string description = {};  // a sentence; the help text wraps it
  bool repeatable = false;       // a value flag given many times, each value kept (ParsedArgs::all)
  bool required = false;         // shown without brackets in the usage line; the caller checks it is given
  bool hidden = false;           // accepted but never shown (flags a program passes to itself)
  std::string group = {};        // the heading it is listed under; empty: "options"
};

// A positional argument, as named in the usage line ("DIR", "NAME...").
// The parser does not count positionals: the caller checks them.
struct Positional {
  std::string name;
  std::string description = {};
  bool optional = false;  // shown as [NAME]
};

struct Spec {
  std::string program;     // what the usage line starts with: "frugal pack", "packer_bench"
  std::string brief = {};  // one line, for a list of commands ("frugal --help")
  // What the command does, its defaults, ranges and examples. Paragraphs
  // are separated by a blank line and wrapped to fit; a paragraph whose
  // first line starts with a space is kept as written (examples, tables).
  std::string summary = {};
  std::vector<Positional> positionals = {};
  std::vector<Option> options = {};  // in the order the help text lists them
};

// The common shapes, so that a spec reads as a table.
inline Option value_flag(std::string flag, std::string value_name, std::string description) {
  return Option{std::move(flag), std::move(value_name), std::move(description)};
}
inline Option switch_flag(std::string flag, std::string description) {
  return Option{std::move(flag), "", std::move(description)};
}
inline Option repeatable(Option option) {
  option.repeatable = true;
  return option;
}
inline Option required(Option option) {
  option.required = true;
  return option;
}
inline Option hidden(Option option) {
  option.hidden = true;
  return option;
}
inline Option grouped(std::string group, Option option) {
  option.group = std::move(group);
  return option;
}

}  // namespace frugal::args
