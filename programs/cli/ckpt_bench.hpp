// What the two forms of `frugal ckpt bench` share: the one-process bench
// (cmd_ckpt_bench.cpp) and the job-of-ranks bench under mpirun
// (cmd_ckpt_bench_ranks.cpp, with --comm): the flags, the buffers, the raw
// and direct write baselines, the statistics and the cleanup.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt_session.hpp"
#include "json_text.hpp"

namespace frugal::cli::bench {

using Clock = std::chrono::steady_clock;

constexpr double kPersistTarget = 0.90;    // persist throughput / the faster raw write, at least
constexpr double kReadTarget = 0.90;       // restore throughput / a raw read of the same bytes, at least
constexpr int64_t kEngineDefaultKeep = 2;  // frugal_ckpt_engine_create's defaults
constexpr int64_t kEngineDefaultShardBytes = int64_t{256} << 20;

struct Config {
  std::string dir;
  EngineSettings engine;  // engine.comm_backend: the ranks form
  uint64_t size = 0;
  int32_t kind = FRUGAL_CKPT_HEARTBEAT;
  int64_t count = 3;
  bool json = false;
  bool keep = false;
};

// The flags of `frugal ckpt bench` (ckpt_bench_spec); throws UsageError.
Config read_config(const std::vector<std::string>& args);

double seconds_since(Clock::time_point start);

[[noreturn]] void fail(int32_t code, const std::string& message);

struct FreeDeleter {
  void operator()(uint8_t* p) const noexcept { std::free(p); }
};
using HugeBuffer = std::unique_ptr<uint8_t, FreeDeleter>;

// 2 MiB aligned, huge pages requested, as the engine's snapshot buffer.
HugeBuffer allocate(uint64_t bytes, const char* what);

// The two raw baselines of the persist throughput, both open + pwrite()
// in 1 GiB calls + fsync + close of `bytes` at `src`:
//   kBuffered: through the page cache, what a plain program does;
//   kDirect:   O_DIRECT (`dd oflag=direct conv=fsync` with one large
//              block), the device's bandwidth: the physical limit. A tail
//              shorter than a 4096-byte block goes through the page cache.
enum class RawWrite { kBuffered, kDirect };

// Seconds, or nullopt for kDirect where DIR's filesystem refuses O_DIRECT.
// The file is left for the caller to unlink (outside the timing).
std::optional<double> time_raw_write(const std::string& path, const uint8_t* src, uint64_t bytes, RawWrite how);

// The restore baseline: `bytes` of the file at `path` into `dst` (2 MiB
// aligned) in 1 GiB pread() calls, with O_DIRECT (the device's bandwidth)
// where the filesystem allows it, else through the page cache after its
// pages of the file are dropped.
struct RawRead {
  double seconds = 0;
  bool direct = false;
};
RawRead time_raw_read(const std::string& path, uint8_t* dst, uint64_t bytes);

// The persist throughput judged against both raw baselines, from the
// per-iteration figures in bytes per second (`direct` empty, or shorter
// than the others: no direct baseline, the filesystem refused O_DIRECT).
// The target holds against the faster baseline's median.
struct PersistVerdict {
  double persist_median = 0, raw_median = 0;
  std::optional<double> direct_median;
  double ratio_raw = 0, ratio_direct = 0;  // persist median / each baseline's (direct: 0 when absent)
  const char* baseline = "";               // "raw write" or "direct write": the faster
  double ratio = 0;                        // against it
  bool met = false;
  double paired_median = 0;  // median over iterations of persist / the faster baseline of the same iteration
};
PersistVerdict judge_persist(const std::vector<double>& persist, const std::vector<double>& raw,
                             const std::vector<double>& direct);
// The verdict's fields for a --json report, with the per-iteration figures.
json::Json persist_json(const PersistVerdict& verdict, const std::vector<double>& persist,
                        const std::vector<double>& raw, const std::vector<double>& direct);

// Iteration i of an A/B comparison: the baseline first on even
// iterations, second on odd ones, so drift during the run hits both alike.
template <typename Baseline, typename Measured>
void alternate(int64_t i, const Baseline& baseline, const Measured& measured) {
  if (i % 2 == 0) {
    baseline();
    measured();
  } else {
    measured();
    baseline();
  }
}

double median(std::vector<double> values);
double maximum(const std::vector<double>& values);
std::string mib_per_s(double bytes_per_second);

// Every key under `key_prefix` removed, a manifest first, through the
// public store API.
void remove_keys_under(frugal_store* store, const std::string& key_prefix);

struct Existing {
  std::vector<std::string> names;  // newest first
  uint64_t max_step = 0;
};
Existing existing_checkpoints(frugal_ckpt_engine* engine);

// Refuses a DIR that already holds checkpoints unless --keep (the engine's
// retention would delete them).
void require_scratch(const Config& config, const Existing& existing);

// Refuses sizes this machine cannot hold: `memory_copies` times --size in
// memory (`memory_what` names them, for the message) and, in DIR, the
// retained checkpoints plus one being written.
void check_resources(const Config& config, double memory_copies, const std::string& memory_what);

// The job-of-ranks bench (--comm), under mpirun: every rank runs it.
int run_ranks(const Config& config);

}  // namespace frugal::cli::bench
