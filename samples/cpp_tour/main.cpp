// The tour of samples/README.md in C++, through the SDK's host helpers
// (frugal/sdk/host.hpp): load the built-in plugins, then use every
// strategy family once (schedule, packer, router, quantizer, scheduler with
// a policy, store and checkpoint engine), checking each result against what
// the tour expects. Prints one line per step; stops with a message and exit
// status 1 at the first mismatch or failed call.
#include <array>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "frugal/frugal.h"
#include "frugal/sdk/host.hpp"
#include "tour.hpp"

namespace {

// Step 1: ABI major 1, a context, the built-in plugins, all six present.
void plugins_step(tour::host::Context& context) {
  const uint32_t abi = frugal_abi_version();
  if (FRUGAL_ABI_VERSION_GET_MAJOR(abi) != FRUGAL_ABI_VERSION_MAJOR) {
    throw tour::Mismatch("plugins: libfrugal speaks ABI major " + std::to_string(FRUGAL_ABI_VERSION_GET_MAJOR(abi)) +
                         "; this tour is written for major " + std::to_string(FRUGAL_ABI_VERSION_MAJOR));
  }
  // No directory and no environment variable needed: discovery finds the
  // built-in plugin directory next to libfrugal.
  const std::size_t loaded = context.discover();
  const std::vector<tour::host::PluginInfo> plugins = context.plugins();
  for (const char* required : {"packer_seq", "policy_cost", "quant_fp8", "router_moe", "schedule_lr", "store_fs"}) {
    bool found = false;
    for (const auto& plugin : plugins) found = found || plugin.name == required;
    if (!found) {
      for (const auto& failure : context.load_failures())
        std::fprintf(stderr, "  load failure: %s: %s\n", failure.path.c_str(), failure.message.c_str());
      throw tour::Mismatch(std::string("plugins: '") + required + "' is not loaded (" + std::to_string(plugins.size()) +
                           " plugins found)");
    }
  }
  std::printf(
      "plugins: frugal %s, ABI %u.%u, %zu loaded, all of packer_seq policy_cost quant_fp8 router_moe schedule_lr "
      "store_fs present\n",
      frugal_version_string(), static_cast<unsigned>(FRUGAL_ABI_VERSION_GET_MAJOR(abi)),
      static_cast<unsigned>(FRUGAL_ABI_VERSION_GET_MINOR(abi)), loaded);
}

}  // namespace

int main() {
  using Step = void (*)(tour::host::Context&);
  constexpr std::array<Step, 7> steps = {plugins_step,         tour::schedule_step, tour::pack_step,
                                         tour::route_step,     tour::quantize_step, tour::scheduler_step,
                                         tour::checkpoint_step};
  std::size_t step = 0;
  try {
    tour::host::Context context;
    for (; step < steps.size(); ++step) steps[step](context);
  } catch (const tour::Mismatch& mismatch) {
    std::fprintf(stderr, "mismatch: %s\n", mismatch.what());
  } catch (const tour::host::Exception& error) {
    std::fprintf(stderr, "frugal call failed: [%s] %s\n", frugal_error_code_name(error.code()), error.what());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
  }
  if (step < steps.size()) {
    std::fprintf(stderr, "tour failed at step %zu of %zu\n", step + 1, steps.size());
    return 1;
  }
  std::printf("tour: all %zu steps passed\n", steps.size());
  return 0;
}
