// FsStore: objects as files below one root directory. Each operation lives
// in its own file (fs_store_<op>.cpp). Every path is resolved relative to
// the root's descriptor, one component at a time, never following links.
//
// Thread safety: any number of threads may call at once on different keys
// (the contract serialises calls on one key). The only shared mutable state
// is atomic: the temp-name counter, the injected-ENOSPC budget, the count
// of directories being created and whether the filesystem refused O_DIRECT.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "durable.hpp"
#include "frugal/sdk/plugin_support.hpp"
#include "frugal/store_vtable.h"
#include "object_io.hpp"
#include "unique_fd.hpp"
#include "write_budget.hpp"

namespace frugal::store_fs {

struct FsConfig {
  std::string root;                       // "root": the store directory (required)
  bool fsync = true;                      // "fsync": false only for throwaway data
  int64_t enospc_after = -1;              // "inject_enospc_after_bytes": -1 = off
  IoMode io = IoMode::kAuto;              // "io": auto | direct | buffered (object_io.hpp)
  bool refuse_direct = false;             // "inject_direct_io_refused": act as on a filesystem without O_DIRECT
  const frugal_host_api* host = nullptr;  // where the one note about a refused O_DIRECT goes

  // Reads and validates the options; throws INVALID_ARGUMENT naming the
  // option at fault (unknown names included).
  static FsConfig from(const sdk::Options& options);
};

class FsStore {
 public:
  // Creates the root (with parents, 0755) when missing and opens it. When
  // it throws, the directories it created are gone again.
  explicit FsStore(FsConfig config);

  void put(const char* key, const void* data, uint64_t size);
  uint64_t size(const char* key) const;
  void read(const char* key, uint64_t offset, void* dst, uint64_t length) const;
  // Also reclaims directories left holding only dead writers' temp files.
  void list(const char* prefix, frugal_store_list_fn fn, void* user_data) const;
  void remove(const char* key);

 private:
  DirDurability dir_durability() { return DirDurability{config_.fsync, &creating_dirs_}; }
  // Direct I/O is worth trying: asked for, and not yet refused here (auto).
  bool try_direct() const noexcept;
  // Records that the filesystem refused O_DIRECT; the first time, logs
  // that puts and reads now go through the page cache.
  void direct_refused() const noexcept;

  FsConfig config_;
  UniqueFd root_;  // O_DIRECTORY descriptor; every path is resolved from it
  WriteBudget budget_;
  std::atomic<int64_t> creating_dirs_{0};
  mutable std::atomic<bool> direct_refused_{false};
};

}  // namespace frugal::store_fs
