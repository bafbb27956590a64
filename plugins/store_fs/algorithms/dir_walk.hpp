// Walking a key's directories below the store root one component at a
// time with openat(O_NOFOLLOW | O_DIRECTORY), so that a symbolic link
// planted inside the root can never redirect a read or a write outside it
// (a path string handed to open() would follow it).
#pragma once

#include <cerrno>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "durable.hpp"
#include "unique_fd.hpp"

namespace frugal::store_fs {

// The directories from the root (depth 0, borrowed) down to the last one
// opened, each held open so callers can create, rename and fsync in them.
class DirChain {
 public:
  explicit DirChain(int root) : root_(root) {}
  [[nodiscard]] int at(size_t depth) const { return depth == 0 ? root_ : dirs_[depth - 1].get(); }
  [[nodiscard]] size_t depth() const { return dirs_.size(); }
  [[nodiscard]] int last() const { return at(dirs_.size()); }
  void push(UniqueFd dir) { dirs_.push_back(std::move(dir)); }

 private:
  int root_;
  std::vector<UniqueFd> dirs_;
};

// Why component `index` of a walk could not be opened.
struct WalkFailure {
  size_t index;
  int err;       // errno of the open (or mkdir)
  bool symlink;  // the entry exists and is a symbolic link
  [[nodiscard]] bool missing() const { return err == ENOENT; }
  // Something that is not a directory (a file, a link) is in the way.
  [[nodiscard]] bool blocked() const { return err == ENOTDIR || err == ELOOP; }
};

// Opens `dirs` in order below chain.last(). On failure the chain holds the
// directories opened so far.
std::optional<WalkFailure> open_dirs(std::span<const std::string_view> dirs, DirChain& chain);

// As open_dirs, creating each missing directory durably (make_dir).
std::optional<WalkFailure> open_or_create_dirs(std::span<const std::string_view> dirs, DirChain& chain,
                                               const DirDurability& durability);

// Removes the directories of `chain` (dirs[0, chain.depth()) below the
// root) that are empty now, deepest first, never the root. Stops at the
// first one that is not empty (another key lives there, a put is creating
// one) or cannot be removed; one holding nothing but temp files of dead
// writers is reclaimed (temp_files.hpp). A put that loses its directory
// to this starts over (see fs_store_put.cpp). Returns the descriptor of
// the topmost directory whose entries changed (the parent of the last one
// removed), for the caller's fsync, or -1 when nothing was removed.
int remove_empty_dirs(std::span<const std::string_view> dirs, const DirChain& chain) noexcept;

// "cannot open directory 'a/b': <reason>" or "'a/b' is a symbolic link,
// which the store never follows", naming the path within the key.
std::string describe(const WalkFailure& failure, std::span<const std::string_view> parts);

// The first `count` components of a key joined with '/'.
std::string join(std::span<const std::string_view> parts, size_t count);

}  // namespace frugal::store_fs
