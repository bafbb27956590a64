// A vendor-style plugin declared with sdk/plugin_declaration.hpp: two
// schedules and an in-memory store (sdk/store_adapter.hpp). The tests load
// it and check that the core sees exactly what is declared here.
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "frugal/sdk/plugin_declaration.hpp"
#include "frugal/sdk/schedule_adapter.hpp"
#include "frugal/sdk/store_adapter.hpp"

namespace {

using frugal::sdk::PluginError;

// lr = slope * step; "slope" is required, so a missing one shows how a
// constructor's PluginError reaches the host.
class Ramp {
 public:
  explicit Ramp(const frugal::sdk::Options& options) {
    options.check_known({"slope"});
    options.require("slope");
    slope_ = options.get_double("slope", 0.0);
  }
  double lr(int64_t step) const { return slope_ * static_cast<double>(step); }

 private:
  double slope_ = 0.0;
};

// A fixed rate that refuses odd steps: an error from a call slot.
class EvenOnly {
 public:
  explicit EvenOnly(const frugal::sdk::Options& options) : rate_(options.get_double("lr", 0.5)) {
    options.check_known({"lr"});
  }
  double lr(int64_t step) const {
    if (step % 2 != 0) throw PluginError(FRUGAL_ERR_OUT_OF_RANGE, "step " + std::to_string(step) + " is odd");
    return rate_;
  }

 private:
  double rate_;
};

// Objects in a map under one mutex: enough for the core's calls.
class MemoryStore {
 public:
  explicit MemoryStore(const frugal::sdk::Options& options) { options.check_known({}); }

  void put(const char* key, const void* data, uint64_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    const std::lock_guard lock(mutex_);
    objects_[key].assign(bytes, bytes + size);
  }
  uint64_t size(const char* key) const {
    const std::lock_guard lock(mutex_);
    return find(key).size();
  }
  void read(const char* key, uint64_t offset, void* dst, uint64_t length) const {
    const std::lock_guard lock(mutex_);
    const auto& object = find(key);
    if (offset + length > object.size())
      throw PluginError(FRUGAL_ERR_OUT_OF_RANGE, std::string("read past the end of '") + key + "'");
    if (length > 0) std::memcpy(dst, object.data() + offset, length);
  }
  void list(const char* prefix, frugal_store_list_fn fn, void* user_data) const {
    const std::lock_guard lock(mutex_);
    for (const auto& [key, object] : objects_)
      if (key.starts_with(prefix) && fn(user_data, key.c_str(), object.size()) != 0) return;
  }
  void remove(const char* key) {
    const std::lock_guard lock(mutex_);
    objects_.erase(key);
  }

 private:
  const std::vector<unsigned char>& find(const char* key) const {
    const auto it = objects_.find(key);
    if (it == objects_.end()) throw PluginError(FRUGAL_ERR_NOT_FOUND, std::string("no object '") + key + "'");
    return it->second;
  }

  mutable std::mutex mutex_;
  std::map<std::string, std::vector<unsigned char>> objects_;
};

constexpr frugal_strategy_desc kStrategies[] = {
    frugal::sdk::schedule_strategy<Ramp>("ramp", "slope * step (option: slope)",
                                         FRUGAL_STRATEGY_THREAD_SAFE | FRUGAL_STRATEGY_DETERMINISTIC),
    frugal::sdk::schedule_strategy<EvenOnly>("even_only", "a fixed rate on even steps only", 0),
    frugal::sdk::store_strategy<MemoryStore>("memory", "objects in process memory", FRUGAL_STRATEGY_THREAD_SAFE),
};

constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
    .name = "sdk_declared",
    .version = "2.5.1-test",
    .vendor = "Example Vendor",
    .license = "Apache-2.0",
    .description = "declared with the sdk helpers",
});

}  // namespace

FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
