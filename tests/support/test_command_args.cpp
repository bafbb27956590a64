// support/args: the parser reads what a Spec declares, and the help text made
// from the same Spec lists it, laid out the same way every time.
#include <catch2/catch.hpp>

#include <sstream>

#include "command_args.hpp"
#include "help_text.hpp"

namespace fa = frugal::args;

namespace {

fa::Spec example_spec() {
  fa::Spec spec;
  spec.program = "tool run";
  spec.brief = "runs things";
  spec.summary =
      "Runs every thing it is given, one after the other, and says how long each one took to run, in seconds.\n\n"
      "  tool run --size 4 a b\n"
      "  tool run --quick";
  spec.positionals = {{"THING...", "what to run"}};
  spec.options = {
      fa::required(fa::value_flag("--size", "N", "how many at once (default 1)")),
      fa::repeatable(fa::value_flag("--tag", "TEXT", "a label for the report")),
      fa::switch_flag("--quick", "small sizes only"),
      fa::value_flag("--a-rather-long-option-name", "VALUE", "its description goes below it"),
      fa::hidden(fa::value_flag("--worker", "ID", "internal")),
      fa::grouped("modes", fa::switch_flag("--speed",
                                           "time it, which takes a while: run it on an idle machine "
                                           "pinned to one core, as the docs say")),
  };
  return spec;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("the help text is the usage line, the summary and the options, in declaration order") {
  const std::string expected =
      "usage: tool run THING... --size N [--tag TEXT]... [--quick]\n"
      "                [--a-rather-long-option-name VALUE] [--speed]\n"
      "\n"
      "Runs every thing it is given, one after the other, and says how long each one\n"
      "took to run, in seconds.\n"
      "\n"
      "  tool run --size 4 a b\n"
      "  tool run --quick\n"
      "\n"
      "arguments:\n"
      "  THING...    what to run\n"
      "\n"
      "options:\n"
      "  --size N    how many at once (default 1)\n"
      "  --tag TEXT  a label for the report\n"
      "  --quick     small sizes only\n"
      "  --a-rather-long-option-name VALUE\n"
      "              its description goes below it\n"
      "  --help, -h  print this text and exit\n"
      "\n"
      "modes:\n"
      "  --speed     time it, which takes a while: run it on an idle machine pinned to\n"
      "              one core, as the docs say\n";
  CHECK(fa::help_text(example_spec()) == expected);
}

TEST_CASE("every line of the help text fits 80 columns and hidden flags stay hidden") {
  const std::string text = fa::help_text(example_spec());
  for (const auto& line : lines_of(text)) CHECK(line.size() <= fa::kHelpColumns);
  CHECK(text.find("--worker") == std::string::npos);
  // The options text is the tail of the help text: a usage error prints the same.
  const std::string options = fa::options_text(example_spec());
  REQUIRE(text.size() > options.size());
  CHECK(text.compare(text.size() - options.size(), options.size(), options) == 0);
}

TEST_CASE("a spec without options still lists --help") {
  fa::Spec spec;
  spec.program = "tool version";
  CHECK(fa::help_text(spec) == "usage: tool version\n\noptions:\n  --help, -h  print this text and exit\n");
}

TEST_CASE("a long usage line of a long program name wraps under a fixed indent") {
  fa::Spec spec;
  spec.program = "a-program-name-that-is-longer-than-half-of-the-line-width";
  for (const char* flag : {"--first", "--second", "--third"}) spec.options.push_back(fa::value_flag(flag, "VALUE", ""));
  const auto lines = lines_of(fa::usage_line(spec));
  REQUIRE(lines.size() == 2);
  CHECK(lines[1] == "        [--second VALUE] [--third VALUE]");
}

TEST_CASE("short_usage names the positionals and required flags, the rest as [options]") {
  CHECK(fa::short_usage(example_spec()) == "tool run THING... --size N [options]");
}

TEST_CASE("two_columns lines up its right column and wraps it") {
  CHECK(fa::two_columns({{"ls", "list"}, {"verify", "check every shard"}}) ==
        "  ls      list\n  verify  check every shard\n");
  CHECK(fa::wrap("one two\nthree", 4) == "    one two\n    three\n");
}

TEST_CASE("the parser accepts what the spec declares, hidden flags included") {
  const auto parsed =
      fa::parse({"--size", "2", "--tag=x", "--tag", "y", "--quick", "--worker", "7", "a", "b"}, example_spec());
  CHECK(parsed.value("--size") == "2");
  CHECK(parsed.all("--tag") == std::vector<std::string>{"x", "y"});
  CHECK(parsed.has("--quick"));
  CHECK(parsed.value("--worker") == "7");
  CHECK(parsed.positional == std::vector<std::string>{"a", "b"});
  CHECK(fa::parse({"a", "-h"}, example_spec()).help);
}

TEST_CASE("usage errors name the flag, and an unknown one lists the visible flags") {
  const auto error_of = [](const std::vector<std::string>& args) {
    try {
      (void)fa::parse(args, example_spec());
    } catch (const fa::UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of({"--bogus"}) ==
        "unknown argument '--bogus' (accepted: --size N, --tag TEXT..., --quick, --a-rather-long-option-name VALUE, "
        "--speed, --help)");
  CHECK(error_of({"--size"}) == "--size needs a value");
  CHECK(error_of({"--size", "--quick"}) == "--size needs a value");
  CHECK(error_of({"--size", "1", "--size", "2"}) == "--size given twice");
  CHECK(error_of({"--quick=yes"}) == "--quick takes no value");
}
