#include "dir_walk.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "os_error.hpp"
#include "temp_files.hpp"

namespace frugal::store_fs {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

int open_dir(int parent, const std::string& name) {
  int fd;
  do {
    fd = ::openat(parent, name.c_str(), kDirFlags);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

// O_NOFOLLOW | O_DIRECTORY reports a link as ENOTDIR (or ELOOP); look
// again without following it to say which it was.
bool is_symlink(int parent, const std::string& name) {
  struct stat st {};
  return ::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

WalkFailure failure_at(size_t index, int parent, const std::string& name, int err) {
  const bool blocked = err == ENOTDIR || err == ELOOP;
  return WalkFailure{index, err, blocked && is_symlink(parent, name)};
}

std::optional<WalkFailure> walk(std::span<const std::string_view> dirs, DirChain& chain, const DirDurability* create) {
  for (size_t i = 0; i < dirs.size(); ++i) {
    const std::string name(dirs[i]);
    int fd = open_dir(chain.last(), name);
    if (fd < 0 && errno == ENOENT && create != nullptr) {
      if (const int err = make_dir(chain.last(), name.c_str(), *create); err != 0)
        return failure_at(i, chain.last(), name, err);
      fd = open_dir(chain.last(), name);
    }
    if (fd < 0) return failure_at(i, chain.last(), name, errno);
    chain.push(UniqueFd(fd));
  }
  return std::nullopt;
}

}  // namespace

std::optional<WalkFailure> open_dirs(std::span<const std::string_view> dirs, DirChain& chain) {
  return walk(dirs, chain, nullptr);
}

std::optional<WalkFailure> open_or_create_dirs(std::span<const std::string_view> dirs, DirChain& chain,
                                               const DirDurability& durability) {
  return walk(dirs, chain, &durability);
}

int remove_empty_dirs(std::span<const std::string_view> dirs, const DirChain& chain) noexcept {
  int changed = -1;
  for (size_t depth = std::min(dirs.size(), chain.depth()); depth > 0; --depth) {
    const int parent = chain.at(depth - 1);
    const std::string dir_name(dirs[depth - 1]);
    if (::unlinkat(parent, dir_name.c_str(), AT_REMOVEDIR) != 0) {
      const bool not_empty = errno == ENOTEMPTY || errno == EEXIST;
      if (!not_empty || !reclaim_stale_temp_files(chain.at(depth)) ||
          ::unlinkat(parent, dir_name.c_str(), AT_REMOVEDIR) != 0)
        break;
    }
    changed = parent;
  }
  return changed;
}

std::string join(std::span<const std::string_view> parts, size_t count) {
  std::string path;
  for (size_t i = 0; i < count && i < parts.size(); ++i) {
    if (i > 0) path += '/';
    path += parts[i];
  }
  return path;
}

std::string describe(const WalkFailure& failure, std::span<const std::string_view> parts) {
  const std::string path = join(parts, failure.index + 1);
  if (failure.symlink) return "'" + path + "' is a symbolic link, which the store never follows";
  if (failure.err == ENOTDIR) return "'" + path + "' is not a directory";
  return "cannot open directory '" + path + "': " + os_reason(failure.err);
}

}  // namespace frugal::store_fs
