// Subcommands of the `frugal` tool. Each returns the process exit code.
#pragma once

#include <string>
#include <vector>

#include "command_spec.hpp"

namespace frugal::cli {

// Exit codes: 0 ok, 1 the command ran and found a problem, 2 bad usage.
inline constexpr int kExitOk = 0;
inline constexpr int kExitProblem = 1;
inline constexpr int kExitUsage = 2;

// Each command's command line (support/args): what it parses and what its
// --help prints; `frugal --help` lists their briefs.
const args::Spec& version_spec();
const args::Spec& plugins_spec();
const args::Spec& ckpt_spec();  // the group: `frugal ckpt SUBCOMMAND DIR`
const args::Spec& ckpt_bench_spec();
const args::Spec& pack_spec();
const args::Spec& simulate_spec();
const args::Spec& comm_test_spec();

int cmd_version(const std::vector<std::string>& args);
int cmd_plugins(const std::vector<std::string>& args);
// `frugal ckpt <subcommand> ...` (cmd_ckpt.cpp); `bench` is cmd_ckpt_bench.cpp.
int cmd_ckpt(const std::vector<std::string>& args);
int cmd_ckpt_bench(const std::vector<std::string>& args);
// `frugal pack ...` (cmd_pack.cpp): pack sequence lengths, report efficiency.
int cmd_pack(const std::vector<std::string>& args);
// `frugal simulate ...` (simulate/cmd_simulate.cpp): cost simulator over
// availability / price traces or Monte-Carlo preemptions.
int cmd_simulate(const std::vector<std::string>& args);
// `frugal comm test ...` (cmd_comm.cpp): every collective checked across
// the ranks, then bandwidth per size; run under mpirun.
int cmd_comm(const std::vector<std::string>& args);
// `frugal demo [ARGS...]` (cmd_demo.cpp): runs the training demo, the
// frugal-demo program next to this one, with ARGS unchanged.
int cmd_demo(const std::vector<std::string>& args);

}  // namespace frugal::cli
