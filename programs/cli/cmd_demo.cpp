// `frugal demo [ARGS...]`: the end-to-end training demo. The demo is its
// own program (frugal-demo, programs/demo), installed next to
// this tool; `frugal demo` replaces itself with it so that the demo owns
// the terminal, its signals and its exit code, and ARGS reach it as given.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "commands.hpp"

namespace frugal::cli {
namespace {

// The directory of the running executable, whatever name or PATH entry it
// was started by.
std::filesystem::path own_directory() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return self.parent_path();
}

}  // namespace

int cmd_demo(const std::vector<std::string>& args) {
  const auto dir = own_directory();
  if (dir.empty()) {
    fmt::print(stderr, "frugal demo: cannot find this program's own directory (/proc/self/exe unreadable)\n");
    return kExitUsage;
  }
  const auto demo = dir / "frugal-demo";
  if (::access(demo.c_str(), X_OK) != 0) {
    fmt::print(stderr,
               "frugal demo: no demo program at {} ({}); it is built with "
               "-DFRUGAL_BUILD_DEMO=ON (the default) and installed next to frugal\n",
               demo.string(), std::strerror(errno));
    return kExitUsage;
  }
  std::vector<std::string> argv_text;
  argv_text.reserve(args.size() + 1);
  argv_text.push_back(demo.string());
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(demo.c_str(), argv.data());
  // execv returns only when it failed.
  fmt::print(stderr, "frugal demo: cannot run {}: {}\n", demo.string(), std::strerror(errno));
  return kExitProblem;
}

}  // namespace frugal::cli
