// put: temp file in the target directory (named and locked as described in
// temp_files.hpp), full write (direct I/O where it can, object_io.hpp),
// fsync, rename onto the final name, fsync of the directory. A crash at any point leaves the previous object or the
// complete new one; a failure removes the temp file.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <span>

#include "dir_walk.hpp"
#include "fs_store.hpp"
#include "os_error.hpp"
#include "store_key.hpp"
#include "temp_files.hpp"

namespace frugal::store_fs {
namespace {

// Process-wide, not per store: two stores on one root in one process must
// never pick the same temp name.
std::atomic<uint64_t> g_temp_counter{0};

// A remove of another key may take away a directory that just became empty
// while this put walks into it; the put then starts over. A few attempts
// are plenty: each one loses only to a remove that ran in between.
constexpr int kAttempts = 64;

// Unlinks the temp file on every failure path, so none is left behind.
class TempFileGuard {
 public:
  TempFileGuard(int dir, const std::string& name) : dir_(dir), name_(name) {}
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
  ~TempFileGuard() {
    if (armed_) ::unlinkat(dir_, name_.c_str(), 0);
  }
  void disarm() { armed_ = false; }

 private:
  int dir_;
  const std::string& name_;
  bool armed_ = true;
};

// Creates a new temp file for `final_name` in `dir`; 0 or errno.
int create_temp(int dir, std::string_view final_name, std::string& name, UniqueFd& fd) {
  for (int tries = 0; tries < 64; ++tries) {
    name = temp_name(final_name, g_temp_counter.fetch_add(1));
    const int created = ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (created >= 0) {
      fd = UniqueFd(created);
      mark_in_use(fd.get());  // so that remove never reclaims it as stale
      return 0;
    }
    // EEXIST: a leftover of a crashed process whose pid has been reused.
    if (errno != EEXIST && errno != EINTR) return errno;
  }
  return EEXIST;
}

}  // namespace

void FsStore::put(const char* key, const void* data, uint64_t size) {
  if (key == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "put: key is NULL");
  const auto parts = split_key("put", key);
  const std::string what = op_key("put", key);
  if (data == nullptr && size > 0) fail(FRUGAL_ERR_INVALID_ARGUMENT, what + ": data is NULL");
  const std::span<const std::string_view> dirs(parts.data(), parts.size() - 1);
  const std::string name(parts.back());

  for (int attempt = 1;; ++attempt) {
    DirChain chain(root_.get());
    try {
      if (const auto failure = open_or_create_dirs(dirs, chain, dir_durability())) {
        if (failure->missing() && attempt < kAttempts) continue;
        fail(FRUGAL_ERR_IO, what + ": " + describe(*failure, parts));
      }
      const int dir = chain.last();
      std::string temp;
      UniqueFd file;
      if (const int err = create_temp(dir, name, temp, file); err != 0) {
        if (err == ENOENT && attempt < kAttempts) continue;  // the directory was removed under us
        fail_io(what + ": cannot create a temporary file", err);
      }
      TempFileGuard cleanup(dir, temp);

      const WriteRequest request{.direct = try_direct(),
                                 .require_direct = config_.io == IoMode::kDirect,
                                 .stream_writeback = config_.fsync,
                                 .refuse_direct = config_.refuse_direct};
      const WriteReport written = write_object(file.get(), data, size, request, budget_);
      if (written.direct_refused) direct_refused();
      if (written.direct_refused && written.err == EOPNOTSUPP)
        fail(FRUGAL_ERR_UNSUPPORTED, what + ": the filesystem under '" + config_.root +
                                         "' refuses direct I/O (O_DIRECT), which option io=direct requires "
                                         "(io=auto falls back to the page cache)");
      if (written.err != 0) fail_io(what + ": write failed", written.err);
      if (config_.fsync) {
        if (const int err = sync_file(file.get()); err != 0) fail_io(what + ": fsync failed", err);
      }
      if (const int err = file.close_checked(); err != 0) fail_io(what + ": close failed", err);
      // rename(2) replaces the final name atomically: readers and a crash
      // see the old object or the new one, never a mix.
      if (::renameat(dir, temp.c_str(), dir, name.c_str()) != 0) {
        const int err = errno;
        fail_io(what + (err == EISDIR ? ": a directory has the object's name" : ": rename onto the final name failed"),
                err);
      }
      cleanup.disarm();
      if (config_.fsync) {
        if (const int err = sync_dir(dir); err != 0)
          fail_io(what + ": fsync of its directory failed (the new object is in place but may not survive a crash)",
                  err);
      }
      return;
    } catch (...) {
      // The temp file is gone (its guard ran first). Take back the
      // directories this put created, and any it leaves empty, as a remove
      // of the key would: a save that fails on a full disk must not leave a
      // checkpoint directory behind that no key names. Of two puts failing
      // in one new directory, whichever finishes last finds it empty.
      // Best effort: the put's own error is what the caller needs.
      if (const int top = remove_empty_dirs(dirs, chain); top >= 0 && config_.fsync) (void)sync_dir(top);
      throw;
    }
  }
}

}  // namespace frugal::store_fs
