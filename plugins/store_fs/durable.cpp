#include "durable.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace frugal::store_fs {

int sync_file(int fd) noexcept {
  while (::fsync(fd) != 0) {
    if (errno != EINTR) return errno;
  }
  return 0;
}

int sync_dir(int fd) noexcept {
  const int err = sync_file(fd);
  return err == EINVAL ? 0 : err;
}

int make_dir(int parent, const char* name, const DirDurability& durability) noexcept {
  if (durability.creating != nullptr) durability.creating->fetch_add(1);
  int err = ::mkdirat(parent, name, 0755) == 0 ? 0 : errno;
  bool created = err == 0;
  if (err == EEXIST) {
    err = 0;
    // Someone else made it; if they may not have fsynced the parent yet
    // (a creation other than ours is in flight), do it here as well.
    created = durability.creating != nullptr && durability.creating->load() > 1;
  }
  if (err == 0 && created && durability.fsync) err = sync_dir(parent);
  if (durability.creating != nullptr) durability.creating->fetch_sub(1);
  return err;
}

}  // namespace frugal::store_fs
