// Test plugin "gate_store", strategy "mem": an in-memory store whose
// puts can be held at a gate, so a test can keep one engine's
// persist in flight (a zombie job still saving) while another engine works
// on the same store. Control objects live in the store itself, under
// "gate/", written with frugal_store_put by the test:
//   gate/hold     "*" holds every put outside gate/; any other text holds
//                 the puts whose key contains it. Removing or rewriting it
//                 releases what it no longer matches.
//   gate/waiting  written by the store: the key of the first put it holds.
//   gate/misaligned  written by the store: one line per put, and per read
//                 at offset 0, of at least 4096 bytes whose memory does not
//                 start on a 4096-byte boundary ("put KEY" / "read KEY"):
//                 what a direct-I/O store (store_fs) could not move with
//                 O_DIRECT.
//   gate/reads    written by the store: "KEY LENGTH" per read of an object
//                 outside gate/, so a test can count the bytes read.
// One instance per open; every engine on that store handle shares it.
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "frugal/sdk/plugin_declaration.hpp"
#include "frugal/sdk/store_adapter.hpp"

namespace {

using frugal::sdk::PluginError;

class MemStore {
 public:
  explicit MemStore(const frugal::sdk::Options&) {}

  void put(const char* key, const void* data, uint64_t size) {
    std::unique_lock lock(mutex_);
    const std::string k = key;
    if (!k.starts_with("gate/"))
      while (held(k)) {
        if (objects_.count("gate/waiting") == 0) objects_["gate/waiting"].assign(k.begin(), k.end());
        changed_.wait(lock);
      }
    if (!k.starts_with("gate/")) note_alignment("put", k, data, size);
    const auto* bytes = static_cast<const uint8_t*>(data);
    objects_[k].assign(bytes, bytes + size);
    changed_.notify_all();
  }

  uint64_t size(const char* key) const {
    std::lock_guard lock(mutex_);
    return find(key).size();
  }

  void read(const char* key, uint64_t offset, void* dst, uint64_t length) {
    std::lock_guard lock(mutex_);
    if (!std::string_view(key).starts_with("gate/")) {
      if (offset == 0) note_alignment("read", key, dst, length);
      const std::string line = std::string(key) + " " + std::to_string(length) + "\n";
      auto& reads = objects_["gate/reads"];
      reads.insert(reads.end(), line.begin(), line.end());
    }
    const auto& object = find(key);
    if (offset > object.size() || length > object.size() - offset)
      throw PluginError(FRUGAL_ERR_OUT_OF_RANGE, std::string("read past the end of ") + key);
    if (length > 0) std::memcpy(dst, object.data() + offset, static_cast<size_t>(length));
  }

  void list(const char* prefix, frugal_store_list_fn fn, void* user_data) const {
    std::vector<std::pair<std::string, uint64_t>> keys;  // called unlocked: fn may call back into the store
    {
      std::lock_guard lock(mutex_);
      for (auto it = objects_.lower_bound(prefix); it != objects_.end() && it->first.starts_with(prefix); ++it)
        keys.emplace_back(it->first, it->second.size());
    }
    for (const auto& [key, size] : keys)
      if (fn(user_data, key.c_str(), size) != 0) return;
  }

  void remove(const char* key) {
    std::lock_guard lock(mutex_);
    objects_.erase(key);
    changed_.notify_all();
  }

 private:
  // Called with the lock held.
  void note_alignment(const char* op, const std::string& key, const void* memory, uint64_t size) {
    constexpr uint64_t kBlock = 4096;
    if (size < kBlock || reinterpret_cast<uintptr_t>(memory) % kBlock == 0) return;
    const std::string line = std::string(op) + " " + key + "\n";
    auto& record = objects_["gate/misaligned"];
    record.insert(record.end(), line.begin(), line.end());
  }

  bool held(const std::string& key) const {
    const auto hold = objects_.find("gate/hold");
    if (hold == objects_.end()) return false;
    const std::string pattern(hold->second.begin(), hold->second.end());
    return pattern == "*" || key.find(pattern) != std::string::npos;
  }

  const std::vector<uint8_t>& find(const char* key) const {
    const auto it = objects_.find(key);
    if (it == objects_.end()) throw PluginError(FRUGAL_ERR_NOT_FOUND, std::string("no object ") + key);
    return it->second;
  }

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::vector<uint8_t>> objects_;
};

constexpr frugal_strategy_desc kStrategies[] = {frugal::sdk::store_strategy<MemStore>(
    "mem", "in-memory store whose puts a test can hold (gate/hold)", FRUGAL_STRATEGY_THREAD_SAFE)};

constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
    .name = "gate_store",
    .version = "0.0.0",
    .vendor = "frugal tests",
    .license = "MIT",
    .description = "in-memory checkpoint store with a gate on puts, for the two-writer tests",
});

}  // namespace

FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
