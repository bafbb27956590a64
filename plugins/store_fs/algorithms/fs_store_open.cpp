// Options and opening the root directory.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "fs_store.hpp"
#include "os_error.hpp"

namespace frugal::store_fs {
namespace {

// The directory holding `path`'s last component, for the fsync that makes
// a new directory's entry durable.
std::string parent_of(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void sync_parent(const std::string& path) {
  const UniqueFd parent(::open(parent_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  const int err = parent.valid() ? sync_dir(parent.get()) : errno;
  if (err != 0) fail_io("open: cannot fsync the directory holding '" + path + "'", err);
}

// The directories make_root created, deepest last. Unless kept, they are
// removed again (deepest first) when the store fails to open, so a failed
// open leaves the filesystem as it found it. One that is no longer empty
// (someone else started using it meanwhile) stays, and so do those above it.
class CreatedDirs {
 public:
  explicit CreatedDirs(bool fsync) : fsync_(fsync) {}
  CreatedDirs(const CreatedDirs&) = delete;
  CreatedDirs& operator=(const CreatedDirs&) = delete;
  ~CreatedDirs() {
    std::string removed;
    for (auto it = paths_.rbegin(); it != paths_.rend() && ::rmdir(it->c_str()) == 0; ++it) removed = *it;
    if (removed.empty() || !fsync_) return;
    const UniqueFd parent(::open(parent_of(removed).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (parent.valid()) (void)sync_dir(parent.get());  // best effort: open's own error is what counts
  }
  void add(std::string path) { paths_.push_back(std::move(path)); }
  void keep() { paths_.clear(); }

 private:
  bool fsync_;
  std::vector<std::string> paths_;
};

// mkdir -p with mode 0755, recording what it created in `created`. The
// root path is the user's own choice, so here (and only here) links are
// followed.
void make_root(const std::string& root, bool fsync, CreatedDirs& created) {
  for (size_t end = 1; end <= root.size(); ++end) {
    if (end < root.size() && (root[end] != '/' || root[end - 1] == '/')) continue;
    const std::string path = root.substr(0, end);
    if (::mkdir(path.c_str(), 0755) == 0) {
      created.add(path);
      if (fsync) sync_parent(path);
    } else if (const int err = errno; err != EEXIST && !is_dir(path)) {
      // (mkdir may say EACCES or EROFS about a directory that exists.)
      fail_io("open: cannot create root directory '" + path + "'", err);
    }
  }
}

}  // namespace

FsConfig FsConfig::from(const sdk::Options& options) {
  options.check_known({"root", "fsync", "io", "inject_enospc_after_bytes", "inject_direct_io_refused"});
  options.require("root");
  FsConfig config;
  config.root = options.get_string("root", "");
  if (config.root.empty()) fail(FRUGAL_ERR_INVALID_ARGUMENT, "option 'root' must not be empty");
  config.fsync = options.get_bool("fsync", true);
  config.enospc_after = options.get_int("inject_enospc_after_bytes", -1);
  if (config.enospc_after < -1)  // the declared min (plugin/option_decls.cpp): OUT_OF_RANGE, as from the core
    fail(FRUGAL_ERR_OUT_OF_RANGE,
         "option 'inject_enospc_after_bytes' must be -1 (off) or >= 0, got " + std::to_string(config.enospc_after));
  const std::string io = options.get_string("io", "auto");
  if (io == "auto")
    config.io = IoMode::kAuto;
  else if (io == "direct")
    config.io = IoMode::kDirect;
  else if (io == "buffered")
    config.io = IoMode::kBuffered;
  else  // the declared choices: INVALID_ARGUMENT, as from the core
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "option 'io' must be auto, direct or buffered, got '" + io + "'");
  config.refuse_direct = options.get_bool("inject_direct_io_refused", false);
  config.host = options.host();
  return config;
}

FsStore::FsStore(FsConfig config) : config_(std::move(config)), budget_(config_.enospc_after) {
  CreatedDirs created(config_.fsync);
  make_root(config_.root, config_.fsync, created);
  root_ = UniqueFd(::open(config_.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root_.valid()) fail_errno([&] { return "open: cannot open root directory '" + config_.root + "'"; });
  created.keep();
}

bool FsStore::try_direct() const noexcept {
  // Auto with fsync off is throwaway data: the page cache is faster there.
  return config_.io == IoMode::kDirect || (config_.io == IoMode::kAuto && config_.fsync && !direct_refused_.load());
}

void FsStore::direct_refused() const noexcept {
  if (direct_refused_.exchange(true) || config_.host == nullptr || config_.host->log == nullptr) return;
  try {
    const std::string message = "the filesystem under '" + config_.root +
                                "' refuses direct I/O (O_DIRECT): puts and reads go through the page cache, "
                                "with writeback streamed per piece";
    config_.host->log(config_.host, config_.io == IoMode::kDirect ? FRUGAL_LOG_ERROR : FRUGAL_LOG_INFO,
                      message.c_str());
  } catch (...) {
    // Out of memory for a note: the put or read itself goes on.
  }
}

}  // namespace frugal::store_fs
