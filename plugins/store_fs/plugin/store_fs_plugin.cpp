// The store_fs plugin: strategy "fs" of kind FRUGAL_KIND_STORE, the
// embedded default checkpoint store. sdk/store_adapter.hpp turns FsStore
// into the vtable, every slot under sdk::guard so no exception crosses the
// ABI.
#include "algorithms/fs_store.hpp"
#include "frugal/sdk/plugin_declaration.hpp"
#include "frugal/sdk/store_adapter.hpp"
#include "option_decls.hpp"

namespace {

using frugal::store_fs::FsConfig;
using frugal::store_fs::FsStore;

// FsStore built from the strategy's options, as the adapter constructs it.
class FsStrategy : public FsStore {
 public:
  explicit FsStrategy(const frugal::sdk::Options& options) : FsStore(FsConfig::from(options)) {}
};

constexpr frugal_strategy_desc kStrategies[] = {
    frugal::sdk::store_strategy<FsStrategy>("fs",
                                            "checkpoint store on a local or shared POSIX filesystem: atomic, durable "
                                            "puts at the disk's bandwidth (options: root, fsync, io, "
                                            "inject_enospc_after_bytes, inject_direct_io_refused)",
                                            FRUGAL_STRATEGY_THREAD_SAFE,  // different keys from many threads at once
                                            &frugal::store_fs::kFsOptions.header)};

constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
    .name = "store_fs",
    .version = FRUGAL_VERSION_STRING,
    .vendor = "frugal",
    .license = "MIT",
    .description = "Checkpoint store on a POSIX filesystem: temp file + fsync + rename + directory fsync per object; "
                   "keys never leave the root and symbolic links are never followed",
});

}  // namespace

FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
