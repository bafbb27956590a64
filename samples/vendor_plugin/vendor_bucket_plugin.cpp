// vendor_bucket: an out-of-tree packer plugin, built only against the
// installed frugal SDK (ABI headers + sdk helpers, never libfrugal).
// One packer strategy, "vendor_bucket", with one option, bucket_width.
#include <cstdint>
#include <string>

#include "bucket_packing.hpp"
#include "frugal/sdk/packer_adapter.hpp"
#include "frugal/sdk/plugin_declaration.hpp"

namespace {

using frugal::sdk::PluginError;

class BucketPacker {
 public:
  explicit BucketPacker(const frugal::sdk::Options& options) {
    options.check_known({"bucket_width"});
    width_ = options.get_int_in("bucket_width", kDefaultWidth, 1, INT32_MAX);
  }

  void pack(const frugal::sdk::PackRequest& request, frugal::sdk::PackWriter& out) const {
    const auto packs = vendor::pack_in_buckets(request.lengths, request.max_len, request.max_per_pack, width_);
    for (const auto& pack : packs) out.add_pack(pack);
    out.set_method("vendor_bucket");
  }

 private:
  // 256 tokens: fine enough that a row's sequences cost about the same to
  // attend over, coarse enough that each bucket still fills its packs.
  static constexpr int64_t kDefaultWidth = 256;
  int64_t width_ = kDefaultWidth;
};

// pack is const and keeps no state between calls: reentrant and repeatable.
constexpr uint32_t kFlags = FRUGAL_STRATEGY_THREAD_SAFE | FRUGAL_STRATEGY_DETERMINISTIC;

constexpr frugal_strategy_desc kBucketPacker = frugal::sdk::packer_strategy<BucketPacker>(
    "vendor_bucket", "best-fit packing inside fixed-width length buckets (option bucket_width, default 256)", kFlags);

constexpr frugal_strategy_desc kStrategies[] = {kBucketPacker};

// Checked while compiling: valid unique names, a vtable per strategy, the
// ABI version stamped from the headers this plugin is built against.
constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
    .name = "vendor_bucket",
    .version = "1.0.0",
    .vendor = "Example Vendor",
    .license = "MIT",
    .description = "Sample out-of-tree packer: rows mix only sequences of similar length",
});

}  // namespace

// The one exported symbol, frugal_plugin_init_v2.
FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
