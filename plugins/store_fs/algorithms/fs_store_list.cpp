// list: a depth-first walk that yields keys in byte-wise lexicographic
// order and descends only into directories that can hold a match.
//
// Ordering subtlety: the keys below directory "a" all start with "a/", and
// '-' and '.' sort before '/', so file "a-b" comes before key "a/x" while
// file "a0" comes after it. Sorting a directory's entries by name alone
// would get that wrong; entries are sorted by name + "/" for directories.
//
// Listing also reclaims a directory that holds nothing but temp files of
// writers that died (a save killed in its first put): no key names it, so
// no remove would ever reach it, and its bytes would leak forever. The
// checks of temp_files.hpp make sure no live writer's file is touched.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "fs_store.hpp"
#include "os_error.hpp"
#include "store_key.hpp"
#include "temp_files.hpp"

namespace frugal::store_fs {
namespace {

struct Entry {
  std::string sort_key;  // the name, plus '/' for a directory
  bool is_dir;
  uint64_t size;
};

// True when `path` and `prefix` agree over their common length: `path`
// matches, or names a directory below which matches may lie.
bool compatible(std::string_view path, std::string_view prefix) {
  const size_t n = std::min(path.size(), prefix.size());
  return path.compare(0, n, prefix.substr(0, n)) == 0;
}

bool matches(std::string_view key, std::string_view prefix) {
  return key.size() >= prefix.size() && compatible(key, prefix);
}

struct DirCloser {
  void operator()(DIR* dir) const noexcept { ::closedir(dir); }
};

class Lister {
 public:
  Lister(std::string_view prefix, frugal_store_list_fn fn, void* user_data)
      : prefix_(prefix), fn_(fn), user_data_(user_data) {}

  // Lists directory `dir`, whose keys all start with `path` ("" or ending
  // in '/'). Returns false once the callback has asked to stop.
  // `abandoned` (optional) is set when the directory holds temp files and
  // nothing else.
  bool walk(int dir, std::string& path, bool* abandoned = nullptr) {
    const std::vector<Entry> entries = read_sorted(dir, path, abandoned);
    for (const Entry& e : entries) {
      const size_t mark = path.size();
      path += e.sort_key;
      const bool go_on = e.is_dir ? descend(dir, path, mark) : visit(path, e.size);
      path.resize(mark);
      if (!go_on) return false;
    }
    return true;
  }

 private:
  [[nodiscard]] bool visit(const std::string& key, uint64_t size) const {
    if (!matches(key, prefix_) || key.size() > FRUGAL_STORE_KEY_MAX) return true;
    return fn_(user_data_, key.c_str(), size) == 0;
  }

  // Walks subdirectory path[mark..] (its name and '/') of `parent`.
  bool descend(int parent, std::string& path, size_t mark) {
    const std::string name = path.substr(mark, path.size() - mark - 1);
    const UniqueFd sub(::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!sub.valid()) {
      if (errno == ENOENT || errno == ENOTDIR) return true;  // removed or replaced meanwhile
      fail_errno([&] { return where(path.substr(0, path.size() - 1)) + ": cannot open directory"; });
    }
    bool abandoned = false;
    const bool go_on = walk(sub.get(), path, &abandoned);
    if (abandoned && reclaim_stale_temp_files(sub.get())) (void)::unlinkat(parent, name.c_str(), AT_REMOVEDIR);
    return go_on;
  }

  // The entries of `dir` that can hold a match: regular files and
  // directories with names a key could use (so temp files, and anything
  // made by hand that no key could name, are skipped), sorted.
  std::vector<Entry> read_sorted(int dir, const std::string& path, bool* abandoned) const {
    // readdir on a fresh descriptor: a dup would share its position with
    // the store's root descriptor, which other threads list from too.
    UniqueFd own(::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!own.valid()) fail_errno([&] { return where(path) + ": cannot open directory"; });
    const std::unique_ptr<DIR, DirCloser> stream(::fdopendir(own.get()));
    if (!stream) fail_errno([&] { return where(path) + ": cannot read directory"; });
    (void)own.release();  // the stream owns the descriptor now
    std::vector<Entry> entries;
    bool temp_files = false, other_entries = false;
    for (;;) {
      errno = 0;
      const dirent* d = ::readdir(stream.get());
      if (d == nullptr) {
        if (errno != 0) fail_errno([&] { return where(path) + ": cannot read directory"; });
        break;
      }
      const std::string_view name(d->d_name);
      if (name == "." || name == "..") continue;
      (is_temp_name(name) ? temp_files : other_entries) = true;
      if (!is_valid_component(name) || !compatible(path + std::string(name), prefix_)) continue;
      struct stat st {};
      if (::fstatat(dir, d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) continue;  // removed since readdir saw it
        fail_errno([&] { return where(path + std::string(name)) + ": stat failed"; });
      }
      if (S_ISREG(st.st_mode))
        entries.push_back({std::string(name), false, static_cast<uint64_t>(st.st_size)});
      else if (S_ISDIR(st.st_mode) && compatible(path + std::string(name) + "/", prefix_))
        entries.push_back({std::string(name) + "/", true, 0});
    }
    if (abandoned != nullptr) *abandoned = temp_files && !other_entries;
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.sort_key < b.sort_key; });
    return entries;
  }

  [[nodiscard]] std::string where(const std::string& path) const {
    return "list '" + prefix_ + "': '" + (path.empty() ? std::string(".") : path) + "'";
  }

  std::string prefix_;
  frugal_store_list_fn fn_;
  void* user_data_;
};

}  // namespace

void FsStore::list(const char* prefix, frugal_store_list_fn fn, void* user_data) const {
  if (prefix == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "list: prefix is NULL");
  if (fn == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "list: fn is NULL");
  // The prefix is only ever compared with names read from the disk, never
  // turned into a path, so it needs no key validation: "../" simply
  // matches nothing.
  Lister lister(prefix, fn, user_data);
  std::string path;
  lister.walk(root_.get(), path);
}

}  // namespace frugal::store_fs
