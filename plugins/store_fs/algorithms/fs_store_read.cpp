// size and read. Only regular files are objects: a link, a directory or a
// FIFO under a key's name is "not found", and reading never follows links.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <span>

#include "dir_walk.hpp"
#include "fs_store.hpp"
#include "os_error.hpp"
#include "store_key.hpp"

namespace frugal::store_fs {
namespace {

[[noreturn]] void not_found(const std::string& what, const std::string& why) {
  fail(FRUGAL_ERR_NOT_FOUND, what + ": no such object" + why);
}

// Opens the directory holding the object. A missing directory, or a file
// where a directory should be, means no such object; a link in the way is
// an error, because the key names something the store refuses to reach.
DirChain open_parent(int root, std::span<const std::string_view> parts, const std::string& what) {
  DirChain chain(root);
  if (const auto failure = open_dirs(parts.first(parts.size() - 1), chain)) {
    if (failure->missing() || (failure->err == ENOTDIR && !failure->symlink)) not_found(what, "");
    fail(FRUGAL_ERR_IO, what + ": " + describe(*failure, parts));
  }
  return chain;
}

std::string kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return " (a symbolic link is there; the store never follows links)";
  if (S_ISDIR(mode)) return " (a directory has that name)";
  return " (something other than a regular file has that name)";
}

}  // namespace

uint64_t FsStore::size(const char* key) const {
  if (key == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "size: key is NULL");
  const auto parts = split_key("size", key);
  const std::string what = op_key("size", key);
  const DirChain chain = open_parent(root_.get(), parts, what);
  struct stat st {};
  if (::fstatat(chain.last(), std::string(parts.back()).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) not_found(what, "");
    fail_errno([&] { return what + ": stat failed"; });
  }
  if (!S_ISREG(st.st_mode)) not_found(what, kind_of(st.st_mode));
  return static_cast<uint64_t>(st.st_size);
}

void FsStore::read(const char* key, uint64_t offset, void* dst, uint64_t length) const {
  if (key == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "read: key is NULL");
  const auto parts = split_key("read", key);
  const std::string what = op_key("read", key);
  if (dst == nullptr && length > 0) fail(FRUGAL_ERR_INVALID_ARGUMENT, what + ": dst is NULL");
  const DirChain chain = open_parent(root_.get(), parts, what);
  // O_NONBLOCK: opening a FIFO planted under the key must not hang; it has
  // no effect on regular files. O_NOFOLLOW: a link fails with ELOOP.
  const UniqueFd file(
      ::openat(chain.last(), std::string(parts.back()).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!file.valid()) {
    if (errno == ENOENT) not_found(what, "");
    if (errno == ELOOP) not_found(what, kind_of(S_IFLNK));
    fail_errno([&] { return what + ": open failed"; });
  }
  struct stat st {};
  if (::fstat(file.get(), &st) != 0) fail_errno([&] { return what + ": stat failed"; });
  if (!S_ISREG(st.st_mode)) not_found(what, kind_of(st.st_mode));

  const auto object_size = static_cast<uint64_t>(st.st_size);
  const auto out_of_range = [&] {
    fail(FRUGAL_ERR_OUT_OF_RANGE, what + ": bytes [" + std::to_string(offset) + ", " + std::to_string(offset) + " + " +
                                      std::to_string(length) + ") lie beyond the object's " +
                                      std::to_string(object_size) + " bytes");
  };
  if (offset > object_size || length > object_size - offset) out_of_range();

  const ReadReport done = read_range(file.get(), offset, dst, length,
                                     ReadRequest{.direct = try_direct(), .refuse_direct = config_.refuse_direct});
  if (done.direct_refused) direct_refused();
  if (done.err == ENODATA) out_of_range();  // the file shrank under us (someone outside the store truncated it)
  if (done.err != 0) fail_io(what + ": read failed", done.err);
}

}  // namespace frugal::store_fs
