// The help text of a command, made from its Spec (command_spec.hpp): the
// usage line, the summary, then every visible argument and option with its
// description, in declaration order, wrapped to 80 columns. The same Spec
// drives the parser, so there is one description of each command line.
// The output depends on nothing but the Spec (stable for tests and docs).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "command_spec.hpp"

namespace frugal::args {

// Lines are wrapped to this many columns (a word longer than a line is
// never cut).
inline constexpr size_t kHelpColumns = 80;

// "usage: frugal ckpt ls DIR [--verify] [--json] ..." (positionals first), wrapped under the
// program name; ends with a newline.
std::string usage_line(const Spec& spec);

// "frugal pack --max-len N [options]": the program, its positionals, its
// required options and "[options]" when it has others; no newline. For a
// list of commands, where the full usage line would not fit.
std::string short_usage(const Spec& spec);

// The arguments and options lists: "arguments:" (when there are any), then
// "options:" (or each option's group heading, in the order they first
// appear), then "--help, -h". What --help and a usage error both print.
std::string options_text(const Spec& spec);

// usage_line, the summary, options_text, with blank lines between.
std::string help_text(const Spec& spec);

// What every program prints on stderr for a bad command line: one line,
// "PROGRAM: MESSAGE (see 'PROGRAM --help')", newline-terminated. One line
// because the message is what the user must read (the whole help under
// it buried the problem in the bench and kit logs); --help has the rest.
std::string usage_error_text(const std::string& program, const std::string& message);
std::string usage_error_text(const Spec& spec, const std::string& message);

// Rows of two columns ("  left   right"), the right one wrapped beside the
// left (or below it, when the left is too wide): the layout of
// options_text, for a list of commands.
std::string two_columns(const std::vector<std::pair<std::string, std::string>>& rows);

// `text` wrapped to kHelpColumns with every line starting with `indent`
// spaces; each "\n" in `text` starts a new line.
std::string wrap(const std::string& text, size_t indent);

}  // namespace frugal::args
