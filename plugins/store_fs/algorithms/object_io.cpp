#include "object_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

namespace frugal::store_fs {
namespace {

// Direct writes in 64 MiB pieces: on the machine of docs/benchmarks.md one
// 64 MiB pwrite reaches the throughput of a single 1 GiB one, and a piece
// keeps the pinned pages and the injected budget's granularity small.
constexpr uint64_t kDirectPiece = uint64_t{64} << 20;
// Page-cache writes with streamed writeback in 32 MiB pieces: large enough
// that the device sees long sequential runs, small enough that the dirty
// pages of one object never pile up.
constexpr uint64_t kStreamPiece = uint64_t{32} << 20;
// Linux caps one write at 0x7ffff000 bytes; 1 GiB stays below it.
constexpr uint64_t kPlainPiece = uint64_t{1} << 30;

bool aligned(uint64_t value) { return value % kDirectAlign == 0; }
bool aligned(const void* p) { return aligned(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p))); }

// Turns O_DIRECT on or off for `fd`; 0 or errno (EINVAL: the filesystem
// has no direct I/O).
int set_direct(int fd, bool on) noexcept {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0) return errno;
  const int wanted = on ? (flags | O_DIRECT) : (flags & ~O_DIRECT);
  if (wanted != flags && ::fcntl(fd, F_SETFL, wanted) != 0) return errno;
  return 0;
}

// Streamed writeback of the page-cache part. Each piece's writeback starts
// as soon as it is written; the piece before it is waited for and dropped
// from the cache, so at most two pieces are dirty or in flight and the disk
// never idles between them. Errors are left for fsync, which reports them:
// this is throughput, not durability.
class Writeback {
 public:
  explicit Writeback(int fd) noexcept : fd_(fd) {}
  void written(uint64_t offset, uint64_t length) noexcept {
    ::sync_file_range(fd_, static_cast<off_t>(offset), static_cast<off_t>(length), SYNC_FILE_RANGE_WRITE);
    settle();
    pending_offset_ = offset;
    pending_length_ = length;
  }
  void settle() noexcept {
    if (pending_length_ == 0) return;
    ::sync_file_range(fd_, static_cast<off_t>(pending_offset_), static_cast<off_t>(pending_length_),
                      SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    ::posix_fadvise(fd_, static_cast<off_t>(pending_offset_), static_cast<off_t>(pending_length_), POSIX_FADV_DONTNEED);
    pending_length_ = 0;
  }

 private:
  int fd_;
  uint64_t pending_offset_ = 0;
  uint64_t pending_length_ = 0;
};

}  // namespace

WriteReport write_object(int fd, const void* data, uint64_t size, const WriteRequest& request,
                         WriteBudget& budget) noexcept {
  WriteReport report;
  const auto* base = static_cast<const unsigned char*>(data);
  bool direct = false;
  auto refused = [&] {
    report.direct_refused = true;
    if (request.require_direct) report.err = EOPNOTSUPP;
  };
  if (request.direct && size >= kDirectAlign && aligned(base)) {
    const int err = request.refuse_direct ? EINVAL : set_direct(fd, true);
    if (err == 0)
      direct = true;
    else if (err == EINVAL)
      refused();
    else
      report.err = err;
    if (report.err != 0) return report;
  }
  Writeback writeback(fd);
  uint64_t done = 0;
  while (done < size) {
    // The rest is the page cache's once an edge is no longer aligned: the
    // tail shorter than a block, or a short write that ended mid-block.
    if (direct && (!aligned(done) || size - done < kDirectAlign)) {
      if (const int err = set_direct(fd, false); err != 0) {
        report.err = err;
        break;
      }
      direct = false;
    }
    const uint64_t piece = direct ? std::min(kDirectPiece, (size - done) / kDirectAlign * kDirectAlign)
                                  : std::min(request.stream_writeback ? kStreamPiece : kPlainPiece, size - done);
    const size_t allowed = budget.reserve(static_cast<size_t>(piece));
    if (allowed == 0) {
      report.err = ENOSPC;  // injected: behave exactly like a full disk
      break;
    }
    if (direct && !aligned(allowed)) {
      // The injected budget ends mid-block: write up to it through the
      // page cache, as a real disk filling up mid-block would take it.
      budget.refund(allowed);
      if (const int err = set_direct(fd, false); err != 0) {
        report.err = err;
        break;
      }
      direct = false;
      continue;
    }
    const ssize_t n = ::pwrite(fd, base + done, allowed, static_cast<off_t>(done));
    if (n < 0) {
      const int err = errno;
      budget.refund(allowed);
      if (err == EINTR) continue;
      if (direct && err == EINVAL) {
        // The device wants a larger alignment than kDirectAlign, or the
        // filesystem accepted the flag but not the write: the rest goes
        // through the page cache.
        if (report.direct_bytes == 0) refused();
        if (report.err != 0) break;
        if (const int off = set_direct(fd, false); off != 0) {
          report.err = off;
          break;
        }
        direct = false;
        continue;
      }
      report.err = err;
      break;
    }
    budget.refund(allowed - static_cast<size_t>(n));
    // write() of a nonzero count returning 0 never happens on a regular
    // file; treat it as a full device rather than spin.
    if (n == 0) {
      report.err = ENOSPC;
      break;
    }
    if (direct) {
      report.direct_bytes += static_cast<uint64_t>(n);
    } else {
      report.buffered_bytes += static_cast<uint64_t>(n);
      if (request.stream_writeback) writeback.written(done, static_cast<uint64_t>(n));
    }
    done += static_cast<uint64_t>(n);
  }
  writeback.settle();
  return report;
}

ReadReport read_range(int fd, uint64_t offset, void* dst, uint64_t length, const ReadRequest& request) noexcept {
  ReadReport report;
  auto* out = static_cast<unsigned char*>(dst);
  const uint64_t end = offset + length;
  // [direct_begin, direct_end): the file range whose offsets and addresses
  // are both block-aligned; empty when the buffer sits off the alignment.
  uint64_t direct_begin = (offset + kDirectAlign - 1) / kDirectAlign * kDirectAlign;
  uint64_t direct_end = end / kDirectAlign * kDirectAlign;
  if (!request.direct || direct_begin >= direct_end || !aligned(out + (direct_begin - offset)))
    direct_begin = direct_end = end;

  // Reads [from, to) with the descriptor as it is set; false on failure.
  auto read_span = [&](uint64_t from, uint64_t to, bool direct) {
    while (from < to) {
      const uint64_t want = std::min(to - from, direct ? kDirectPiece : kPlainPiece);
      const ssize_t n = ::pread(fd, out + (from - offset), static_cast<size_t>(want), static_cast<off_t>(from));
      if (n < 0) {
        if (errno == EINTR) continue;
        report.err = errno;
        return false;
      }
      if (n == 0) {
        report.err = ENODATA;  // the file ended early: someone truncated it under us
        return false;
      }
      // A direct read that stopped short of a block edge came to the end
      // of the file; the next call returns 0 and reports it.
      if (direct) report.direct_bytes += static_cast<uint64_t>(n);
      from += static_cast<uint64_t>(n);
      if (direct && !aligned(from)) {
        direct = false;
        (void)set_direct(fd, false);  // the next pread reports the end of the file either way
      }
    }
    return true;
  };

  if (!read_span(offset, direct_begin, false)) return report;
  if (direct_begin < direct_end) {
    const int err = request.refuse_direct ? EINVAL : set_direct(fd, true);
    bool direct = err == 0;
    if (err == EINVAL) report.direct_refused = true;
    if (err != 0 && err != EINVAL) {
      report.err = err;
      return report;
    }
    if (direct) {
      const uint64_t before = report.direct_bytes;
      if (!read_span(direct_begin, direct_end, true)) {
        // EINVAL on the first direct read: the filesystem took the flag but
        // not the read (or wants a larger alignment); read it buffered.
        if (report.err != EINVAL || report.direct_bytes != before) return report;
        report.err = 0;
        report.direct_refused = true;
        direct = false;
      }
      if (const int off = set_direct(fd, false); off != 0) {
        report.err = off;
        return report;
      }
    }
    if (!direct && !read_span(direct_begin, direct_end, false)) return report;
  }
  read_span(direct_end, end, false);
  return report;
}

}  // namespace frugal::store_fs
