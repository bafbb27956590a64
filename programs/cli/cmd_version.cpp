// `frugal version`: what the loaded library is, next to what we were built with.
#include <fmt/format.h>

#include "ckpt_args.hpp"
#include "cli_errors.hpp"
#include "commands.hpp"
#include "frugal/frugal.h"

namespace frugal::cli {

const args::Spec& version_spec() {
  static const args::Spec spec{
      "frugal version",
      "SDK and ABI versions, CUDA support",
      "The SDK and ABI versions of the loaded library and of this tool's headers, and whether it was built with "
      "CUDA. Exit code 0.",
      {},
      {}};
  return spec;
}

int cmd_version(const std::vector<std::string>& args) {
  ParsedArgs parsed;
  try {
    parsed = parse_args(args, version_spec());
  } catch (const UsageError& e) {
    return report_error("version", "USAGE", e.what(), kExitUsage, has_word(args, "--json"));
  }
  if (parsed.help) return print_help(version_spec());
  if (!parsed.positional.empty())
    return report_error("version", "USAGE", fmt::format("takes no arguments, got '{}'", parsed.positional[0]),
                        kExitUsage, has_word(args, "--json"));
  const uint32_t abi = frugal_abi_version();
  fmt::print("frugal {}\n", frugal_version_string());
  fmt::print("ABI {}.{} (headers of this tool: {}.{})\n", FRUGAL_ABI_VERSION_GET_MAJOR(abi),
             FRUGAL_ABI_VERSION_GET_MINOR(abi), FRUGAL_ABI_VERSION_MAJOR, FRUGAL_ABI_VERSION_MINOR);
  if (frugal_built_with_cuda() != 0)
    fmt::print("CUDA: built with CUDA, {} device(s) visible\n", frugal_cuda_device_count());
  else
    fmt::print("CUDA: built without CUDA\n");
  return kExitOk;
}

}  // namespace frugal::cli
