// How the store moves an object's bytes between memory and the disk:
// direct I/O (O_DIRECT) where the filesystem and the buffer allow it, so a
// checkpoint goes to the device at its bandwidth without a copy into the
// page cache and without evicting the training job's cached data; the page
// cache otherwise, with writeback started piece by piece (sync_file_range)
// so the final fsync has little left to do.
//
// Direct I/O needs the memory address, the file offset and the length to be
// multiples of the device's logical block. A buffer that is not aligned, a
// tail shorter than a block and a filesystem that refuses O_DIRECT (tmpfs
// before Linux 6.6, many FUSE and network mounts) all take the page cache;
// the result says how many bytes went which way.
#pragma once

#include <cstdint>

#include "write_budget.hpp"

namespace frugal::store_fs {

// The "io" option.
enum class IoMode {
  kAuto,      // direct where possible; the page cache where the filesystem refuses it
  kDirect,    // direct where the buffer allows; a filesystem that refuses it fails the put
  kBuffered,  // always the page cache
};

// 4096 covers devices with 512-byte and 4 KiB logical blocks, which is all
// of them in practice; a device that needs more fails the first direct
// write with EINVAL, which is handled as a refusal.
inline constexpr uint64_t kDirectAlign = 4096;

struct WriteRequest {
  bool direct = false;           // try O_DIRECT for the aligned part
  bool require_direct = false;   // a refusal is the error EOPNOTSUPP instead of a fallback
  bool stream_writeback = true;  // page-cache part: start writeback per piece, drop written pieces
  bool refuse_direct = false;    // tests: behave as on a filesystem without O_DIRECT
};

struct WriteReport {
  int err = 0;                  // 0 or errno (ENOSPC from the budget too)
  uint64_t direct_bytes = 0;    // written with O_DIRECT
  uint64_t buffered_bytes = 0;  // written through the page cache
  bool direct_refused = false;  // the filesystem refused O_DIRECT
};

// Writes all `size` bytes of `data` at offset 0 of `fd` (opened without
// O_DIRECT, write-only, empty), retrying EINTR and short writes. The caller
// still fsyncs: neither path makes the file's metadata durable.
WriteReport write_object(int fd, const void* data, uint64_t size, const WriteRequest& request,
                         WriteBudget& budget) noexcept;

struct ReadRequest {
  bool direct = false;         // try O_DIRECT for the aligned part
  bool refuse_direct = false;  // tests: behave as on a filesystem without O_DIRECT
};

struct ReadReport {
  int err = 0;                // 0 or errno; ENODATA: the file ended early
  uint64_t direct_bytes = 0;  // read with O_DIRECT
  bool direct_refused = false;
};

// Reads `length` bytes at `offset` of `fd` (opened without O_DIRECT,
// read-only) into `dst`. The part whose file offset and address are both
// block-aligned is read with O_DIRECT when asked; the edges through the page
// cache. Never writes outside [dst, dst + length).
ReadReport read_range(int fd, uint64_t offset, void* dst, uint64_t length, const ReadRequest& request) noexcept;

}  // namespace frugal::store_fs
