// `frugal`: inspect the SDK and its plugins from the command line.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cli_errors.hpp"
#include "commands.hpp"
#include "demo_spec.hpp"
#include "frugal/sdk/host.hpp"
#include "help_text.hpp"

namespace {

// The command list, from each command's spec (its --help has the rest).
// The demo is a program of its own (frugal-demo, which `frugal demo`
// execs): its row comes from frugal-demo's spec.
void print_usage(std::FILE* out) {
  namespace cli = frugal::cli;
  const std::string tool = "frugal ";
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto* spec : {&cli::version_spec(), &cli::plugins_spec(), &cli::ckpt_spec(), &cli::pack_spec(),
                           &cli::simulate_spec(), &cli::comm_test_spec()})
    rows.emplace_back(frugal::args::short_usage(*spec).substr(tool.size()), spec->brief);
  const auto& demo = frugal_demo::demo_spec();
  rows.emplace_back("demo" + frugal::args::short_usage(demo).substr(demo.program.size()),
                    demo.brief + " (runs " + demo.program + ")");
  rows.emplace_back("help", "this text");
  const std::string text = "usage: frugal <command> [options]\n\ncommands:\n" + frugal::args::two_columns(rows) +
                           "\n`frugal <command> --help` prints a command's options.\n";
  std::fputs(text.c_str(), out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage(stderr);
    return frugal::cli::kExitUsage;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "help" || frugal::cli::is_help(command)) {
    print_usage(stdout);
    return frugal::cli::kExitOk;
  }
  // Each command reports its own errors; this catches what escapes one
  // (a failed allocation, a bug) so that it is one line, never an abort.
  return frugal::cli::run_reporting_errors(command, frugal::cli::has_word(args, "--json"), [&] {
    if (command == "version" || command == "--version") return frugal::cli::cmd_version(args);
    if (command == "plugins") return frugal::cli::cmd_plugins(args);
    if (command == "ckpt") return frugal::cli::cmd_ckpt(args);
    if (command == "pack") return frugal::cli::cmd_pack(args);
    if (command == "simulate") return frugal::cli::cmd_simulate(args);
    if (command == "comm") return frugal::cli::cmd_comm(args);
    if (command == "demo") return frugal::cli::cmd_demo(args);
    std::fprintf(stderr, "frugal: unknown command '%s' (see 'frugal --help')\n", command.c_str());
    return frugal::cli::kExitUsage;
  });
}
