// The engine's shard I/O on a few threads: while one shard waits on the
// disk (a write and its fsync, or a read) another is hashed, so neither
// the device nor the CPU idles between shards.
#pragma once

#include <cstddef>
#include <functional>

namespace frugal::ckpt {

// Shards moved at once: two keep the device busy while the other hashes
// (measured in docs/benchmarks.md, "Checkpoint engine").
inline constexpr size_t kShardWorkers = 2;

// Calls work(i) for every i in [0, count), on up to kShardWorkers threads
// (the caller's among them). After a call throws, no new index is started;
// every call in flight finishes before this returns, then the first
// exception is rethrown: the caller's buffers outlive every use.
void for_each_shard(size_t count, const std::function<void(size_t)>& work);

}  // namespace frugal::ckpt
