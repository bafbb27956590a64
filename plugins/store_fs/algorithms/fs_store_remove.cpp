// remove: unlink the object, then the directories it leaves empty, up to
// (not including) the root, and make that durable.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <span>

#include "dir_walk.hpp"
#include "fs_store.hpp"
#include "os_error.hpp"
#include "store_key.hpp"

namespace frugal::store_fs {

void FsStore::remove(const char* key) {
  if (key == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "remove: key is NULL");
  const auto parts = split_key("remove", key);
  const std::string what = op_key("remove", key);
  const std::span<const std::string_view> dirs(parts.data(), parts.size() - 1);

  DirChain chain(root_.get());
  if (const auto failure = open_dirs(dirs, chain)) {
    // No directory, or a file where one should be: there is no object.
    if (failure->missing() || (failure->err == ENOTDIR && !failure->symlink)) return;
    fail(FRUGAL_ERR_IO, what + ": " + describe(*failure, parts));
  }

  // unlinkat never follows a link: a link under the key's name is removed
  // itself, its target is untouched.
  const std::string name(parts.back());
  int changed = -1;  // the directory whose entry was removed last
  if (::unlinkat(chain.last(), name.c_str(), 0) == 0) {
    changed = chain.last();
  } else if (errno == EISDIR) {
    return;  // a directory is not an object: nothing to remove, nothing to tidy
  } else if (errno != ENOENT) {
    fail_errno([&] { return what + ": unlink failed"; });
  }

  // Tidy the directories this leaves empty (best effort: the object itself
  // is already gone). A directory holding only temp files of writers that
  // died (a put killed mid-write) is reclaimed too, or their bytes would
  // leak forever: no key names them.
  if (const int top = remove_empty_dirs(dirs, chain); top >= 0) changed = top;

  // Only the topmost changed directory needs an fsync: the ones below it
  // are gone, and with them whatever they held.
  if (changed >= 0 && config_.fsync) {
    if (const int err = sync_dir(changed); err != 0) fail_io(what + ": fsync of its directory failed", err);
  }
}

}  // namespace frugal::store_fs
