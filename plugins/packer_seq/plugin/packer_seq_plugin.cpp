// The packer_seq plugin: one packer strategy, "packer_seq", whose option
// "algo" picks the algorithm. The core checks every assignment and derives
// the output formats; this file only adapts the algorithm library.
#include <string>

#include "algorithms/best_of.hpp"
#include "algorithms/packer.hpp"
#include "frugal/sdk/packer_adapter.hpp"
#include "frugal/sdk/plugin_declaration.hpp"
#include "option_decls.hpp"

namespace {

using frugal::sdk::PluginError;
namespace packer = frugal::packer;

class SeqPacker {
 public:
  explicit SeqPacker(const frugal::sdk::Options& options) {
    options.check_known({"algo"});
    const std::string name = options.get_string("algo", frugal::packer_seq::kDefaultAlgorithm);
    try {
      algorithm_ = packer::algorithm_from_name(name);
    } catch (const packer::PackError& e) {
      throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, std::string("option 'algo': ") + e.what());
    }
  }

  void pack(const frugal::sdk::PackRequest& request, frugal::sdk::PackWriter& out) const {
    const packer::PackLimits limits{request.max_len, request.max_per_pack, request.seed};
    packer::Algorithm used = algorithm_;
    packer::PackResult result;
    try {
      result = algorithm_ == packer::Algorithm::best ? packer::best_of(request.lengths, limits, &used)
                                                     : packer::run_algorithm(algorithm_, request.lengths, limits);
    } catch (const packer::PackError& e) {
      throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, e.what());
    }
    for (std::size_t p = 0; p < result.packs(); ++p) out.add_pack(result.pack(p));
    out.set_method(packer::algorithm_name(used));
  }

 private:
  packer::Algorithm algorithm_ = packer::Algorithm::refined;
};

// Instances hold only their algorithm choice: pack is const and reentrant.
constexpr uint32_t kFlags = FRUGAL_STRATEGY_THREAD_SAFE | FRUGAL_STRATEGY_DETERMINISTIC;

constexpr frugal_strategy_desc kStrategies[] = {frugal::sdk::packer_strategy<SeqPacker>(
    "packer_seq",
    "sequence packing with near-zero padding (option algo: ffd, bfd, spfhp, lpfhp, refined, best, naive_first_fit)",
    kFlags, &frugal::packer_seq::kPackerSeqOptions.header)};

constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
    .name = "packer_seq",
    .version = FRUGAL_VERSION_STRING,
    .vendor = "frugal",
    .license = "MIT",
    .description = "Sequence packing: FFD, BFD, SPFHP, LPFHP, a refinement that beats them, and best-of",
});

}  // namespace

FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
