// The temp files of put: how they are named, how a live writer marks one
// as in use, and how one left behind by a writer that died is recognised
// and reclaimed, so a crash mid-put does not leak its bytes forever.
//
// A temp file is ".tmp.<name>.<pid>.<counter>" (<name> cut to 200 bytes so
// the whole fits NAME_MAX). Its writer holds an OFD write lock on it while
// writing; OFD locks belong to the open file, not the process, so they
// separate threads of one process too, are dropped by the kernel when the
// writer dies, and are seen across hosts on filesystems with locking (NFS).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace frugal::store_fs {

// ".tmp.<final_name cut to 200 bytes>.<our pid>.<counter>".
std::string temp_name(std::string_view final_name, uint64_t counter);

// Marks an open temp file as being written (best effort: a filesystem
// without locks still has the pid in the name).
void mark_in_use(int fd) noexcept;

// True for a name of the form ".tmp.<name>.<pid>.<counter>".
bool is_temp_name(std::string_view name);

// Called when `dir` could not be removed because it is not empty: when
// every entry left in it is a temp file whose writer is gone (its pid is no
// live process here and nobody holds its lock), unlinks them all and
// returns true, so the caller can remove the directory. Anything else in
// the directory (an object, a live writer's temp file, a file the store
// does not know), or nothing at all, leaves it untouched and returns false.
bool reclaim_stale_temp_files(int dir) noexcept;

}  // namespace frugal::store_fs
