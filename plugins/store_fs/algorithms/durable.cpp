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
  if (err == EEXIST) err = 0;
  // Also when the directory already existed: whoever made it may have died
  // (or failed) between mkdir and the parent's fsync, and a put must not
  // report durable success under a directory entry that is not. A parent
  // fsync with nothing dirty is cheap.
  if (err == 0 && durability.fsync) err = sync_dir(parent);
  if (durability.creating != nullptr) durability.creating->fetch_sub(1);
  return err;
}

}  // namespace frugal::store_fs
