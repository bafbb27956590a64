#include "temp_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <limits>
#include <memory>
#include <vector>

#include "unique_fd.hpp"

namespace frugal::store_fs {
namespace {

constexpr std::string_view kPrefix = ".tmp.";

struct DirCloser {
  void operator()(DIR* dir) const noexcept { ::closedir(dir); }
};

// All of `text` as a decimal number.
bool parse_all(std::string_view text, uint64_t& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// The writer's pid from ".tmp.<name>.<pid>.<counter>", or -1 when `name`
// is not of that form (<name> may itself contain dots: parse from the end).
long writer_pid(std::string_view name) {
  if (name.substr(0, kPrefix.size()) != kPrefix) return -1;
  const size_t last = name.rfind('.');
  if (last == std::string_view::npos || last < kPrefix.size()) return -1;
  const size_t before = name.rfind('.', last - 1);
  if (before == std::string_view::npos || before < kPrefix.size()) return -1;
  uint64_t counter = 0, pid = 0;
  if (!parse_all(name.substr(last + 1), counter) || !parse_all(name.substr(before + 1, last - before - 1), pid) ||
      pid == 0)
    return -1;
  // A pid beyond pid_t is no process at all: report one that cannot exist.
  return pid > uint64_t(std::numeric_limits<pid_t>::max()) ? long(std::numeric_limits<pid_t>::max()) : long(pid);
}

// A whole-file OFD lock request.
[[maybe_unused]] struct flock whole_file(short type) {
  struct flock lock {};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 0;
  lock.l_pid = 0;  // must be 0 for OFD locks
  return lock;
}

// True when temp file `name` in `dir` belongs to a writer that is gone.
bool is_stale(int dir, const char* name) {
  const long pid = writer_pid(name);
  if (pid <= 0) return false;
  // kill(pid, 0): 0 or EPERM means a process with that pid exists here.
  if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) return false;
  // The pid is unknown here, but the writer may live on another host (or
  // in another pid namespace): its lock says so.
  const UniqueFd file(::openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!file.valid()) return false;
  struct stat st {};
  if (::fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
#ifdef F_OFD_SETLK
  struct flock probe = whole_file(F_RDLCK);
  if (::fcntl(file.get(), F_OFD_SETLK, &probe) != 0) {
    // EAGAIN/EACCES: a live writer holds it. EINVAL/ENOLCK: no locks on this
    // filesystem, so the dead pid is all there is to go on.
    return errno != EAGAIN && errno != EACCES;
  }
#endif
  return true;  // our probe lock is dropped when `file` closes
}

}  // namespace

std::string temp_name(std::string_view final_name, uint64_t counter) {
  return std::string(kPrefix) + std::string(final_name.substr(0, 200)) + "." + std::to_string(::getpid()) + "." +
         std::to_string(counter);
}

bool is_temp_name(std::string_view name) { return writer_pid(name) > 0; }

void mark_in_use([[maybe_unused]] int fd) noexcept {
#ifdef F_OFD_SETLK  // Linux >= 3.15; elsewhere the pid in the name is all there is
  struct flock lock = whole_file(F_WRLCK);
  (void)::fcntl(fd, F_OFD_SETLK, &lock);
#endif
}

bool reclaim_stale_temp_files(int dir) noexcept {
  try {
    // A fresh descriptor for readdir (see fs_store_list.cpp).
    UniqueFd own(::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!own.valid()) return false;
    const std::unique_ptr<DIR, DirCloser> stream(::fdopendir(own.get()));
    if (!stream) return false;
    (void)own.release();
    std::vector<std::string> stale;
    while (const dirent* d = ::readdir(stream.get())) {
      const std::string_view name(d->d_name);
      if (name == "." || name == "..") continue;
      if (!is_stale(dir, d->d_name)) return false;  // something that must stay
      stale.emplace_back(name);
    }
    for (const auto& name : stale) (void)::unlinkat(dir, name.c_str(), 0);
    return !stale.empty();
  } catch (...) {  // out of memory: leave the directory as it is
    return false;
  }
}

}  // namespace frugal::store_fs
