#include "help_text.hpp"

#include <algorithm>

namespace frugal::args {
namespace {

// The widest left column before a description moves below its flag: wide
// enough for "--keep-heartbeats N", narrow enough to leave the description
// most of the line.
constexpr size_t kMaxLeftWidth = 22;

// `text`'s words filled into lines of at most `width` characters; "\n"
// ends a line. A word longer than `width` gets a line of its own.
std::vector<std::string> fill(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    std::string line;
    size_t at = start;
    while (at < end) {
      const size_t word_end = std::min(text.find(' ', at), end);
      if (word_end > at) {
        const std::string word = text.substr(at, word_end - at);
        if (!line.empty() && line.size() + 1 + word.size() > width) {
          lines.push_back(line);
          line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
      }
      at = word_end + 1;
    }
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

std::string left_text(const Option& option) {
  return option.value_name.empty() ? option.flag : option.flag + " " + option.value_name;
}

std::string usage_item(const Option& option) {
  std::string item = left_text(option);
  if (!option.required) item = "[" + item + "]";
  return option.repeatable ? item + "..." : item;
}

using Rows = std::vector<std::pair<std::string, std::string>>;

size_t left_width(const Rows& rows) {
  size_t width = 0;
  for (const auto& [left, right] : rows)
    if (left.size() <= kMaxLeftWidth) width = std::max(width, left.size());
  return width;
}

std::string columns(const Rows& rows, size_t width) {
  const size_t start = 2 + width + 2;
  std::string out;
  for (const auto& [left, right] : rows) {
    const std::vector<std::string> lines =
        right.empty() ? std::vector<std::string>{} : fill(right, kHelpColumns - start);
    out += "  " + left;
    size_t first = 0;
    if (left.size() <= width && !lines.empty()) {
      out += std::string(width - left.size() + 2, ' ') + lines.front();
      first = 1;
    }
    out += '\n';
    for (size_t i = first; i < lines.size(); ++i) out += std::string(start, ' ') + lines[i] + '\n';
  }
  return out;
}

const char* const kHelpFlag = "--help, -h";
const char* const kHelpDescription = "print this text and exit";

}  // namespace

std::string wrap(const std::string& text, size_t indent) {
  std::string out;
  const size_t width = kHelpColumns > indent + 20 ? kHelpColumns - indent : 20;
  for (const auto& line : fill(text, width)) out += std::string(line.empty() ? 0 : indent, ' ') + line + '\n';
  return out;
}

std::string usage_line(const Spec& spec) {
  std::vector<std::string> items;
  for (const auto& positional : spec.positionals)
    items.push_back(positional.optional ? "[" + positional.name + "]" : positional.name);
  for (const auto& option : spec.options)
    if (!option.hidden) items.push_back(usage_item(option));
  std::string line = "usage: " + spec.program;
  size_t indent = line.size() + 1;
  if (indent > kHelpColumns / 2) indent = 8;
  std::string out;
  bool first_on_line = true;
  for (const auto& item : items) {
    if (!first_on_line && line.size() + 1 + item.size() > kHelpColumns) {
      out += line + '\n';
      line = std::string(indent, ' ') + item;
      continue;
    }
    line += " " + item;
    first_on_line = false;
  }
  return out + line + '\n';
}

std::string short_usage(const Spec& spec) {
  std::string out = spec.program;
  for (const auto& positional : spec.positionals)
    out += " " + (positional.optional ? "[" + positional.name + "]" : positional.name);
  bool others = false;
  for (const auto& option : spec.options) {
    if (option.hidden) continue;
    if (option.required)
      out += " " + usage_item(option);
    else
      others = true;
  }
  return others ? out + " [options]" : out;
}

std::string options_text(const Spec& spec) {
  Rows arguments;
  for (const auto& positional : spec.positionals) arguments.emplace_back(positional.name, positional.description);
  // Groups in the order they first appear; --help closes "options".
  std::vector<std::pair<std::string, Rows>> groups;
  for (const auto& option : spec.options) {
    if (option.hidden) continue;
    const std::string heading = option.group.empty() ? "options" : option.group;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& group) { return group.first == heading; });
    if (it == groups.end()) it = groups.insert(groups.end(), {heading, {}});
    it->second.emplace_back(left_text(option), option.description);
  }
  auto options = std::find_if(groups.begin(), groups.end(), [](const auto& group) { return group.first == "options"; });
  if (options == groups.end()) options = groups.insert(groups.end(), {"options", {}});
  options->second.emplace_back(kHelpFlag, kHelpDescription);

  // One left column for every list, so that the descriptions line up.
  size_t width = left_width(arguments);
  for (const auto& group : groups) width = std::max(width, left_width(group.second));
  std::string out;
  if (!arguments.empty()) out += "arguments:\n" + columns(arguments, width);
  for (const auto& [heading, rows] : groups) out += (out.empty() ? "" : "\n") + heading + ":\n" + columns(rows, width);
  return out;
}

std::string help_text(const Spec& spec) {
  std::string out = usage_line(spec);
  size_t start = 0;
  while (start < spec.summary.size()) {
    size_t end = spec.summary.find("\n\n", start);
    if (end == std::string::npos) end = spec.summary.size();
    const std::string paragraph = spec.summary.substr(start, end - start);
    if (!paragraph.empty()) out += "\n" + (paragraph.front() == ' ' ? paragraph + '\n' : wrap(paragraph, 0));
    start = end + 2;
  }
  return out + "\n" + options_text(spec);
}

std::string usage_error_text(const std::string& program, const std::string& message) {
  return program + ": " + message + " (see '" + program + " --help')\n";
}

std::string usage_error_text(const Spec& spec, const std::string& message) {
  return usage_error_text(spec.program, message);
}

std::string two_columns(const std::vector<std::pair<std::string, std::string>>& rows) {
  return columns(rows, left_width(rows));
}

}  // namespace frugal::args
