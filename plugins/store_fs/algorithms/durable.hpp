// The durability primitives of the store: fsync of files and directories,
// and directory creation that is itself durable before anyone relies on it.
#pragma once

#include <atomic>
#include <cstdint>

namespace frugal::store_fs {

// fsync(fd); 0 or errno (EINTR retried).
int sync_file(int fd) noexcept;

// fsync of a directory; 0 or errno. EINVAL is taken as success: some
// filesystems (and FUSE/CIFS mounts) cannot fsync a directory at all, and
// PostgreSQL's fsync_fname makes the same call for the same reason.
int sync_dir(int fd) noexcept;

// How new directories are made durable.
struct DirDurability {
  bool fsync = true;
  // Directories this store is creating right now. A thread that finds a
  // directory already there (EEXIST) cannot tell whether its creator has
  // fsynced the parent yet; while any creation is in flight it fsyncs the
  // parent itself, so a put never reports success for an object whose
  // directory entry could still vanish in a crash.
  std::atomic<int64_t>* creating = nullptr;
};

// mkdirat(parent, name, 0755), then fsync of `parent` so the new entry
// survives a crash. An existing entry is success (the caller opens it and
// finds out whether it is a directory). 0 or errno.
int make_dir(int parent, const char* name, const DirDurability& durability) noexcept;

}  // namespace frugal::store_fs
