// A schedule whose declared options exercise how the conformance
// kit builds values, one variant per build (DECLARED_VARIANT):
//   1 a required directory option whose code refuses a directory that is
//     missing or not empty, and marks each one it takes: it conforms only
//     if every instance gets a fresh, empty directory;
//   2 a required string without choices, which the kit cannot build: the
//     rules that need an instance are skipped unless --option gives it;
//   3 an explicit empty declaration: the strategy takes no option.
#include <filesystem>
#include <fstream>
#include <string>

#include "frugal/sdk/option_decl.hpp"
#include "frugal/sdk/plugin_declaration.hpp"
#include "frugal/sdk/schedule_adapter.hpp"

namespace {

using frugal::sdk::PluginError;

enum Variant { kDirectory = 1, kUnbuildable = 2, kNoOptions = 3 };

class Declared {
 public:
  explicit Declared(const frugal::sdk::Options& options) {
    if (DECLARED_VARIANT == kDirectory) {
      options.check_known({"root"});
      options.require("root");
      take(options.get_string("root", ""));
    } else if (DECLARED_VARIANT == kUnbuildable) {
      options.check_known({"label"});
      options.require("label");
    } else {
      options.check_known({});
    }
  }

  double lr(int64_t step) const {
    if (step < 0) throw PluginError(FRUGAL_ERR_OUT_OF_RANGE, "step must be >= 0");
    return 0.001;
  }

 private:
  // An existing empty directory, then marked as taken by one instance.
  static void take(const std::string& root) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec))
      throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'root': '" + root + "' is not a directory");
    if (!std::filesystem::is_empty(root, ec))
      throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'root': '" + root + "' is not empty");
    std::ofstream(std::filesystem::path(root) / "taken") << "one instance\n";
  }
};

constexpr frugal_option_decl kDirectoryOptions[] = {
    frugal::sdk::string_option("root", "an empty directory the schedule takes").required().directory(),
};
constexpr frugal_option_decl kUnbuildableOptions[] = {
    frugal::sdk::string_option("label", "any text").required(),
};

constexpr const frugal_ext_header* declarations() {
  if (DECLARED_VARIANT == kDirectory) return frugal::sdk::options_ext<kDirectoryOptions>();
  if (DECLARED_VARIANT == kUnbuildable) return frugal::sdk::options_ext<kUnbuildableOptions>();
  return &frugal::sdk::kNoOptions.header;
}

constexpr uint32_t kFlags = FRUGAL_STRATEGY_THREAD_SAFE | FRUGAL_STRATEGY_DETERMINISTIC;
constexpr frugal_strategy_desc kStrategies[] = {
    frugal::sdk::schedule_strategy<Declared>("declared", "a fixed rate; options as declared", kFlags, declarations()),
};
constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
    .name = DECLARED_NAME,
    .version = "1.0",
    .vendor = "frugal tests",
    .license = "Apache-2.0",
});

}  // namespace

FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
