// `frugal`: inspect the SDK and its plugins from the command line.
#include <cstdio>
#include <string>
#include <vector>

#include "cli_errors.hpp"
#include "commands.hpp"
#include "frugal/sdk/host.hpp"

namespace {

void print_usage(std::FILE* out) {
  std::fputs(
      "usage: frugal <command> [options]\n"
      "\n"
      "commands:\n"
      "  version            SDK and ABI versions, CUDA support\n"
      "  plugins [--json] [--options]\n"
      "                     every plugin found (FRUGAL_PLUGIN_PATH, then the built-in\n"
      "                     directory), its strategies (with --options, the options each\n"
      "                     declares), and every file that failed to load\n"
      "  ckpt ls|latest|verify|inspect|gc|bench DIR ...\n"
      "                     checkpoints in a directory: list, find the newest valid one,\n"
      "                     verify, show a manifest, apply retention, benchmark saves\n"
      "                     (`frugal ckpt help` for the details)\n"
      "  pack (--lengths FILE | --histogram FILE) --max-len N [--algo NAME|best] ...\n"
      "                     pack sequence lengths into rows of max-len tokens and report\n"
      "                     efficiency against the lower bound (`frugal pack help`)\n"
      "  simulate [--job FILE] [--trace FILE] [--runs N] [--seed S] [--json] [--plot FILE.svg]\n"
      "                     compare training plans (reserved, spot, spot then reserved,\n"
      "                     heartbeats, autoscaling) by cost, wall time and lost work over\n"
      "                     spot traces or Monte-Carlo preemptions; without --job, the\n"
      "                     worked example (`frugal simulate help`)\n"
      "  demo [--quick] [--out DIR] ...\n"
      "                     the main job: train a tiny MoE language model on CPU twice, a\n"
      "                     padded dense fp32 baseline on reserved nodes and a frugal run\n"
      "                     (packing, MoE, FP8, spot with real preemptions), and report\n"
      "                     the savings (`frugal demo --help`; programs/demo)\n"
      "  help               this text\n",
      out);
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
    if (command == "demo") return frugal::cli::cmd_demo(args);
    std::fprintf(stderr, "frugal: unknown command '%s' (see 'frugal --help')\n", command.c_str());
    return frugal::cli::kExitUsage;
  });
}
