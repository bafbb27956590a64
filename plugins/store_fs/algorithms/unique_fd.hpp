// An owned file descriptor, closed on destruction, so that no early return
// or exception on a failure path leaks one.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <utility>

namespace frugal::store_fs {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  [[nodiscard]] int get() const noexcept { return fd_; }
  [[nodiscard]] bool valid() const noexcept { return fd_ >= 0; }

  // Gives up ownership (e.g. to fdopendir) without closing.
  int release() noexcept { return std::exchange(fd_, -1); }

  void reset() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  // Closes now and returns 0 or the errno of close: on NFS and similar
  // filesystems close is where a deferred write error shows up, so the
  // write path must look at it rather than let the destructor drop it.
  int close_checked() noexcept {
    const int fd = std::exchange(fd_, -1);
    if (fd < 0) return 0;
    // Linux releases the descriptor even when close fails (EINTR included),
    // so retrying would risk closing a descriptor another thread just got.
    return ::close(fd) == 0 ? 0 : errno;
  }

 private:
  int fd_ = -1;
};

}  // namespace frugal::store_fs
