// `frugal ckpt bench DIR --size BYTES ...`: real checkpoints through the
// engine, measured against baselines taken in the same run on the same
// bytes and the same disk:
//   snapshot stall (frugal_ckpt_save_result.snapshot_seconds) vs a plain
//     memcpy of the same bytes into a pre-faulted buffer;
//   persist throughput (bytes / frugal_ckpt_persist_result.persist_seconds)
//     vs two raw writes of the same bytes to a file in DIR + fsync: through
//     the page cache, and with O_DIRECT (the device's bandwidth); the
//     target holds against the faster of the two;
//   restore throughput (frugal_ckpt_restore of the newest checkpoint) vs a
//     read of the same bytes from a file in DIR, with O_DIRECT where the
//     filesystem allows it.
// Baseline and engine measurements alternate order every iteration (A/B,
// B/A, ...) so drift on a noisy shared machine hits both alike. Medians are
// reported; the stall's max shows the first save (its snapshot buffer is
// faulted in then).
#include <sys/mman.h>

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ckpt_args.hpp"
#include "ckpt_bench.hpp"
#include "ckpt_session.hpp"
#include "commands.hpp"
#include "json_text.hpp"

namespace frugal::cli {
namespace bench {
namespace {

constexpr double kStallTarget = 1.10;                    // snapshot stall / memcpy, at most
constexpr uint64_t kTensorTarget = uint64_t{128} << 20;  // bytes per synthetic tensor, roughly
constexpr uint64_t kWriteChunk = uint64_t{1} << 30;      // raw baselines: pwrite() size
constexpr uint64_t kDirectBlock = 4096;                  // O_DIRECT's alignment (as store_fs)
constexpr int64_t kKeepEverything = 1000000;

}  // namespace

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

void fail(int32_t code, const std::string& message) { throw host::Exception(code, message); }

// Allocated as the engine allocates its snapshot buffer (2 MiB aligned,
// huge pages requested), so the memcpy baseline gets the same memory
// advantages and the stall ratio compares like with like.
HugeBuffer allocate(uint64_t bytes, const char* what) {
  void* memory = nullptr;
  if (posix_memalign(&memory, size_t{2} << 20, static_cast<size_t>(bytes)) != 0)
    fail(FRUGAL_ERR_OUT_OF_MEMORY,
         fmt::format("cannot allocate {} for the {}", human_bytes(static_cast<double>(bytes)), what));
#ifdef MADV_HUGEPAGE
  madvise(memory, static_cast<size_t>(bytes), MADV_HUGEPAGE);
#endif
  return HugeBuffer(static_cast<uint8_t*>(memory));
}

namespace {

// Non-constant float32 data in [-0.5, 0.5) (xorshift64*), bytes past the
// last whole float included; fast enough for GiBs.
void fill(uint8_t* data, uint64_t bytes) {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  const uint64_t floats = bytes / 4;
  for (uint64_t i = 0; i < floats; ++i) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    const auto bits = static_cast<uint32_t>((state * 0x2545f4914f6cdd1dull) >> 41) | 0x3f800000u;
    const float value = std::bit_cast<float>(bits) - 1.5f;
    std::memcpy(data + i * 4, &value, 4);
  }
  for (uint64_t i = floats * 4; i < bytes; ++i) data[i] = static_cast<uint8_t>(i * 131u);
}

double time_memcpy(uint8_t* dst, const uint8_t* src, uint64_t bytes) {
  const auto start = Clock::now();
  std::memcpy(dst, src, static_cast<size_t>(bytes));
  const double seconds = seconds_since(start);
  // Keep the copy observable so it cannot be elided.
  if (bytes > 0 && dst[bytes - 1] != src[bytes - 1]) fail(FRUGAL_ERR_INTERNAL, "memcpy baseline copied wrong bytes");
  return seconds;
}

}  // namespace

std::optional<double> time_raw_write(const std::string& path, const uint8_t* src, uint64_t bytes, RawWrite how) {
  const bool direct = how == RawWrite::kDirect;
  const char* what = direct ? "direct write baseline" : "raw write baseline";
  const auto start = Clock::now();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (direct ? O_DIRECT : 0), 0644);
  if (fd < 0 && direct && errno == EINVAL) return std::nullopt;  // the filesystem has no direct I/O
  if (fd < 0) fail(FRUGAL_ERR_IO, fmt::format("{}: cannot create '{}': {}", what, path, std::strerror(errno)));
  auto failed = [&](const char* op, int err) {
    ::close(fd);
    fail(FRUGAL_ERR_IO, fmt::format("{}: {} of '{}' failed: {}", what, op, path, std::strerror(err)));
  };
  // Direct: the whole blocks with O_DIRECT (src is 2 MiB aligned), the
  // tail through the page cache, as the store writes an object.
  const uint64_t direct_end = direct ? bytes / kDirectBlock * kDirectBlock : 0;
  uint64_t done = 0;
  while (done < bytes) {
    if (direct && done == direct_end && ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_DIRECT) != 0)
      failed("fcntl", errno);
    const uint64_t end = done < direct_end ? direct_end : bytes;
    const auto chunk = static_cast<size_t>(std::min(end - done, kWriteChunk));
    const ssize_t n = ::pwrite(fd, src + done, chunk, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && direct && done == 0 && errno == EINVAL) {  // took the flag, not the write
      ::close(fd);
      return std::nullopt;
    }
    if (n <= 0) failed("write", n < 0 ? errno : ENOSPC);
    done += static_cast<uint64_t>(n);
  }
  int sync = 0;
  while ((sync = ::fsync(fd)) != 0 && errno == EINTR) {
  }
  if (sync != 0) failed("fsync", errno);
  if (::close(fd) != 0)
    fail(FRUGAL_ERR_IO, fmt::format("{}: close of '{}' failed: {}", what, path, std::strerror(errno)));
  return seconds_since(start);
}

RawRead time_raw_read(const std::string& path, uint8_t* dst, uint64_t bytes) {
  RawRead out;
  const auto start = Clock::now();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
  out.direct = fd >= 0;
  if (fd < 0 && errno == EINVAL) {  // no direct I/O here: a cold page-cache read instead
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  }
  if (fd < 0) fail(FRUGAL_ERR_IO, fmt::format("read baseline: cannot open '{}': {}", path, std::strerror(errno)));
  // Direct: the whole blocks with O_DIRECT, the tail through the page cache.
  const uint64_t direct_end = out.direct ? bytes / kDirectBlock * kDirectBlock : 0;
  uint64_t done = 0;
  while (done < bytes) {
    if (out.direct && done == direct_end && ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_DIRECT) != 0) break;
    const uint64_t end = done < direct_end ? direct_end : bytes;
    const ssize_t n =
        ::pread(fd, dst + done, static_cast<size_t>(std::min(end - done, kWriteChunk)), static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<uint64_t>(n);
  }
  const int err = errno;
  ::close(fd);
  if (done < bytes)
    fail(FRUGAL_ERR_IO,
         fmt::format("read baseline: read {} of {} bytes of '{}': {}", done, bytes, path, std::strerror(err)));
  out.seconds = seconds_since(start);
  return out;
}

PersistVerdict judge_persist(const std::vector<double>& persist, const std::vector<double>& raw,
                             const std::vector<double>& direct) {
  PersistVerdict v;
  const bool has_direct = !direct.empty() && direct.size() == persist.size();
  v.persist_median = median(persist);
  v.raw_median = median(raw);
  if (has_direct) v.direct_median = median(direct);
  v.ratio_raw = v.persist_median / v.raw_median;
  v.ratio_direct = has_direct ? v.persist_median / *v.direct_median : 0;
  const bool direct_faster = has_direct && *v.direct_median >= v.raw_median;
  v.baseline = direct_faster ? "direct write" : "raw write";
  v.ratio = direct_faster ? v.ratio_direct : v.ratio_raw;
  v.met = v.ratio >= kPersistTarget;
  std::vector<double> pairs;
  for (size_t i = 0; i < persist.size() && i < raw.size(); ++i)
    pairs.push_back(persist[i] / std::max(raw[i], has_direct ? direct[i] : 0.0));
  v.paired_median = median(pairs);
  return v;
}

json::Json persist_json(const PersistVerdict& verdict, const std::vector<double>& persist,
                        const std::vector<double>& raw, const std::vector<double>& direct) {
  json::Json out = {{"persist_bytes_per_second", persist},
                    {"persist_bytes_per_second_median", verdict.persist_median},
                    {"raw_write_bytes_per_second", raw},
                    {"raw_write_bytes_per_second_median", verdict.raw_median},
                    {"persist_ratio_raw_write", verdict.ratio_raw},
                    {"direct_io", verdict.direct_median.has_value()},
                    {"persist_baseline", verdict.baseline},
                    {"persist_ratio", verdict.ratio},
                    {"persist_target", kPersistTarget},
                    {"persist_target_met", verdict.met},
                    {"persist_ratio_paired_median", verdict.paired_median}};
  if (verdict.direct_median)
    out.update({{"direct_write_bytes_per_second", direct},
                {"direct_write_bytes_per_second_median", *verdict.direct_median},
                {"persist_ratio_direct_write", verdict.ratio_direct}});
  return out;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double maximum(const std::vector<double>& values) {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

std::string mib_per_s(double bytes_per_second) { return fmt::format("{:.1f} MiB/s", bytes_per_second / (1 << 20)); }

Config read_config(const std::vector<std::string>& args) {
  const auto parsed = parse_args(args, ckpt_bench_spec());
  if (parsed.positional.empty()) throw UsageError("bench needs DIR (a scratch directory)");
  if (parsed.positional.size() > 1)
    throw UsageError(fmt::format("bench takes one DIR, got '{}' too", parsed.positional[1]));
  Config config;
  config.dir = parsed.positional[0];
  const auto size = parsed.value("--size");
  if (!size) throw UsageError("bench needs --size BYTES (e.g. 64M, 1G)");
  const auto bytes = parse_byte_size(*size);
  if (!bytes)
    throw UsageError(
        fmt::format("--size '{}' is not a byte count > 0 (digits with an optional K, M, G or T suffix, "
                    "binary: 64M = 64 MiB)",
                    *size));
  config.size = *bytes;
  if (const auto kind = parsed.value("--kind")) {
    if (*kind == "heartbeat")
      config.kind = FRUGAL_CKPT_HEARTBEAT;
    else if (*kind == "full")
      config.kind = FRUGAL_CKPT_FULL;
    else
      throw UsageError(fmt::format("--kind must be heartbeat or full, got '{}'", *kind));
  }
  if (const auto count = parsed.value("--count")) config.count = parse_int_flag("--count", *count, 1, 100000);
  config.engine.prefix = parsed.value("--prefix").value_or("");
  if (const auto restore = parsed.value("--restore")) {
    if (*restore != "verified" && *restore != "in_place")
      throw UsageError(fmt::format("--restore must be verified or in_place, got '{}'", *restore));
    config.engine.restore = *restore;
  }
  if (const auto keep = parsed.value("--keep-heartbeats"))
    config.engine.keep_heartbeats = parse_int_flag("--keep-heartbeats", *keep, 1, 1000000);
  if (const auto keep = parsed.value("--keep-full"))
    config.engine.keep_full = parse_int_flag("--keep-full", *keep, 1, 1000000);
  if (const auto shard = parsed.value("--shard-bytes")) {
    const auto shard_bytes = parse_byte_size(*shard);
    if (!shard_bytes || *shard_bytes < 4096 || *shard_bytes > (uint64_t{1} << 40))
      throw UsageError(fmt::format("--shard-bytes '{}' must be a byte count from 4096 to 1T", *shard));
    config.engine.shard_bytes = static_cast<int64_t>(*shard_bytes);
  }
  config.engine.comm_backend = parsed.value("--comm").value_or("");
  config.json = parsed.has("--json");
  config.keep = parsed.has("--keep");
  if (config.keep) {
    // Leave every checkpoint made: retention off unless asked for.
    if (!config.engine.keep_heartbeats) config.engine.keep_heartbeats = kKeepEverything;
    if (!config.engine.keep_full) config.engine.keep_full = kKeepEverything;
  }
  return config;
}

// Refuses sizes this machine cannot hold: `memory_copies` times the state
// in memory (`memory_what` says which), and on the disk the retained
// checkpoints plus one more.
void check_resources(const Config& config, double memory_copies, const std::string& memory_what) {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) {
    const double memory = static_cast<double>(pages) * static_cast<double>(page_size);
    if (memory_copies * static_cast<double>(config.size) > memory)
      fail(FRUGAL_ERR_OUT_OF_MEMORY, fmt::format("--size {} needs about {} of memory ({}); this machine has {}",
                                                 human_bytes(static_cast<double>(config.size)),
                                                 human_bytes(memory_copies * static_cast<double>(config.size)),
                                                 memory_what, human_bytes(memory)));
  }
  const int64_t keep = config.kind == FRUGAL_CKPT_FULL ? config.engine.keep_full.value_or(kEngineDefaultKeep)
                                                       : config.engine.keep_heartbeats.value_or(kEngineDefaultKeep);
  const double needed = static_cast<double>(std::min(config.count, keep) + 1) * static_cast<double>(config.size);
  struct statvfs fs {};
  if (::statvfs(config.dir.c_str(), &fs) == 0) {
    const double available = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
    if (needed > available)
      fail(FRUGAL_ERR_FAILED_PRECONDITION,
           fmt::format("{} has {} free; the bench needs about {} ({} retained checkpoint(s) plus one being written)",
                       config.dir, human_bytes(available), human_bytes(needed), std::min(config.count, keep)));
  }
}

namespace {

struct Iteration {
  std::string name;
  double snapshot_seconds = 0;
  double memcpy_seconds = 0;
  double persist_seconds = 0;
  uint64_t persist_bytes = 0;
  double raw_write_seconds = 0;
  std::optional<double> direct_write_seconds;  // absent: DIR's filesystem refuses O_DIRECT
};

// One restore of the newest checkpoint against one read of the same bytes.
struct RestoreSample {
  double restore_seconds = 0;
  double read_seconds = 0;
  bool direct_read = false;
};

// The synthetic state: float32 tensors carved out of one buffer (a uint8
// tail when the size is not a multiple of 4), registered for every kind.
struct State {
  HugeBuffer data;
  std::vector<uint64_t> offsets, sizes;
  std::vector<int32_t> dtypes;
};

State make_state(uint64_t size) {
  State state;
  state.data = allocate(size, "synthetic state");
  fill(state.data.get(), size);
  const uint64_t floats = size / 4;
  if (floats > 0) {
    const uint64_t tensors =
        std::clamp<uint64_t>((size + kTensorTarget - 1) / kTensorTarget, std::min<uint64_t>(4, floats), uint64_t{4096});
    const uint64_t per = (floats + tensors - 1) / tensors;
    for (uint64_t begin = 0; begin < floats; begin += per) {
      state.offsets.push_back(begin * 4);
      state.sizes.push_back(std::min(per, floats - begin) * 4);
      state.dtypes.push_back(FRUGAL_DTYPE_FLOAT32);
    }
  }
  if (size % 4 != 0) {
    state.offsets.push_back(floats * 4);
    state.sizes.push_back(size % 4);
    state.dtypes.push_back(FRUGAL_DTYPE_UINT8);
  }
  return state;
}

void register_state(frugal_ckpt_engine* engine, const State& state) {
  for (size_t i = 0; i < state.sizes.size(); ++i) {
    const uint64_t element = state.dtypes[i] == FRUGAL_DTYPE_FLOAT32 ? 4 : 1;
    const int64_t shape[1] = {static_cast<int64_t>(state.sizes[i] / element)};
    frugal_tensor view{};
    view.struct_size = sizeof(view);
    view.data = state.data.get();
    view.byte_offset = state.offsets[i];
    view.dtype = state.dtypes[i];
    view.ndim = 1;
    view.device = frugal_device{FRUGAL_DEVICE_CPU, 0};
    view.shape = shape;
    host::check(frugal_ckpt_register(engine, fmt::format("bench/tensor{:04}", i).c_str(), &view, 0));
  }
}

}  // namespace

void remove_keys_under(frugal_store* store, const std::string& key_prefix) {
  std::vector<std::string> keys;
  auto collect = [](void* user_data, const char* key, uint64_t) -> int32_t {
    static_cast<std::vector<std::string>*>(user_data)->emplace_back(key);
    return 0;
  };
  host::check(frugal_store_list(store, key_prefix.c_str(), collect, &keys));
  std::stable_partition(keys.begin(), keys.end(), [](const std::string& k) { return k.ends_with("/manifest"); });
  for (const auto& key : keys) host::check(frugal_store_remove(store, key.c_str()));
}

Existing existing_checkpoints(frugal_ckpt_engine* engine) {
  Existing existing;
  auto collect = [](void* user_data, const frugal_ckpt_info* info) -> int32_t {
    auto* out = static_cast<Existing*>(user_data);
    out->names.emplace_back(info->name);
    out->max_step = std::max(out->max_step, info->step);
    return 0;
  };
  host::check(frugal_ckpt_list(engine, 0, collect, &existing));
  return existing;
}

void require_scratch(const Config& config, const Existing& existing) {
  if (!existing.names.empty() && !config.keep)
    fail(FRUGAL_ERR_FAILED_PRECONDITION,
         fmt::format("{} already holds {} checkpoint(s){} (e.g. {}); the bench needs an empty scratch location "
                     "(another DIR or --prefix), or --keep to add to them",
                     config.dir, existing.names.size(),
                     config.engine.prefix.empty() ? "" : fmt::format(" under prefix '{}'", config.engine.prefix),
                     existing.names.front()));
}

namespace {

struct Report {
  const Config* config = nullptr;
  size_t tensors = 0;
  std::vector<Iteration> iterations;
  std::vector<RestoreSample> restores;
  std::vector<std::string> kept;
};

void print_report(const Report& report) {
  const Config& config = *report.config;
  std::vector<double> snapshot, memcpy_s, persist, persist_bps, raw, raw_bps, direct, direct_bps;
  for (const auto& it : report.iterations) {
    snapshot.push_back(it.snapshot_seconds);
    memcpy_s.push_back(it.memcpy_seconds);
    persist.push_back(it.persist_seconds);
    persist_bps.push_back(static_cast<double>(it.persist_bytes) / it.persist_seconds);
    raw.push_back(it.raw_write_seconds);
    raw_bps.push_back(static_cast<double>(config.size) / it.raw_write_seconds);
    if (it.direct_write_seconds) {
      direct.push_back(*it.direct_write_seconds);
      direct_bps.push_back(static_cast<double>(config.size) / *it.direct_write_seconds);
    }
  }
  const PersistVerdict persist_verdict = judge_persist(persist_bps, raw_bps, direct_bps);
  const bool has_direct = persist_verdict.direct_median.has_value();
  const double stall_median = median(snapshot), memcpy_median = median(memcpy_s);
  const double stall_ratio = stall_median / memcpy_median;
  const bool stall_met = stall_ratio <= kStallTarget;
  // Per-save ratios against the baseline taken next to it (A/B pairs): a
  // second view that is less sensitive to drift across the run.
  std::vector<double> stall_pairs;
  for (size_t i = 0; i < report.iterations.size(); ++i) stall_pairs.push_back(snapshot[i] / memcpy_s[i]);
  const double stall_paired = median(stall_pairs);
  // Restore throughput against the read of the same bytes: times of the
  // same byte count, so the ratio of throughputs is read / restore.
  std::vector<double> restore_s, read_s, read_pairs;
  bool read_direct = !report.restores.empty();
  for (const auto& r : report.restores) {
    restore_s.push_back(r.restore_seconds);
    read_s.push_back(r.read_seconds);
    read_pairs.push_back(r.read_seconds / r.restore_seconds);
    read_direct = read_direct && r.direct_read;
  }
  const double read_ratio = restore_s.empty() ? 0 : median(read_s) / median(restore_s);
  const bool read_met = read_ratio >= kReadTarget;
  const double read_paired = median(read_pairs);

  if (config.json) {
    json::Json names = json::Json::array();
    for (const auto& it : report.iterations) names.push_back(it.name);
    json::Json out = {{"dir", config.dir},
                      {"prefix", config.engine.prefix},
                      {"size_bytes", config.size},
                      {"count", config.count},
                      {"kind", kind_name(config.kind)},
                      {"tensors", report.tensors},
                      {"shard_bytes", config.engine.shard_bytes.value_or(kEngineDefaultShardBytes)},
                      {"keep_heartbeats", config.engine.keep_heartbeats.value_or(kEngineDefaultKeep)},
                      {"keep_full", config.engine.keep_full.value_or(kEngineDefaultKeep)},
                      {"snapshot_seconds", snapshot},
                      {"snapshot_seconds_median", stall_median},
                      {"snapshot_seconds_max", maximum(snapshot)},
                      {"memcpy_seconds", memcpy_s},
                      {"memcpy_seconds_median", memcpy_median},
                      {"stall_ratio", stall_ratio},
                      {"stall_target", kStallTarget},
                      {"stall_target_met", stall_met},
                      {"stall_ratio_paired_median", stall_paired},
                      {"persist_seconds", persist},
                      {"persist_seconds_median", median(persist)},
                      {"raw_write_seconds", raw},
                      {"raw_write_seconds_median", median(raw)},
                      {"checkpoints", std::move(names)},
                      {"kept", report.kept}};
    out.update(persist_json(persist_verdict, persist_bps, raw_bps, direct_bps));
    out.update({{"restore_seconds", restore_s},
                {"restore_seconds_median", median(restore_s)},
                {"read_seconds", read_s},
                {"read_seconds_median", median(read_s)},
                {"read_direct", read_direct},
                {"restore_read_ratio", read_ratio},
                {"restore_read_target", kReadTarget},
                {"restore_read_target_met", read_met},
                {"restore_read_ratio_paired_median", read_paired}});
    if (has_direct) out.update({{"direct_write_seconds", direct}, {"direct_write_seconds_median", median(direct)}});
    fmt::print("{}\n", json::json_text(out));
    return;
  }

  fmt::print("frugal ckpt bench: {} of {} state ({} tensors), {} save{}, interleaved A/B with the baselines\n",
             human_bytes(static_cast<double>(config.size)), kind_name(config.kind), report.tensors, config.count,
             config.count == 1 ? "" : "s");
  fmt::print("store: fs at {}{}\n\n", config.dir,
             config.engine.prefix.empty() ? "" : fmt::format(", prefix '{}'", config.engine.prefix));
  fmt::print("{:>5}  {:>10}  {:>10}  {:>10}  {:>14}  {:>14}  {:>14}\n", "save", "snapshot", "memcpy", "persist",
             "persist", "raw write", "direct write");
  for (size_t i = 0; i < report.iterations.size(); ++i) {
    const auto& it = report.iterations[i];
    fmt::print("{:>5}  {:>10}  {:>10}  {:>10}  {:>14}  {:>14}  {:>14}\n", i + 1, human_seconds(it.snapshot_seconds),
               human_seconds(it.memcpy_seconds), human_seconds(it.persist_seconds), mib_per_s(persist_bps[i]),
               mib_per_s(raw_bps[i]), has_direct ? mib_per_s(direct_bps[i]) : "n/a");
  }
  fmt::print("\n{:<16} {:>14} {:>10}   {:<12} {:>14}   {:>6}   {:<8}\n", "", "median", "max", "baseline", "median",
             "ratio", "target");
  fmt::print("{:<16} {:>14} {:>10}   {:<12} {:>14}   {:>6.3f}   {:<8} {}\n", "snapshot stall",
             human_seconds(stall_median), human_seconds(maximum(snapshot)), "memcpy", human_seconds(memcpy_median),
             stall_ratio, fmt::format("<= {:.2f}", kStallTarget), stall_met ? "met" : "MISSED");
  const PersistVerdict& v = persist_verdict;
  if (has_direct)
    fmt::print("{:<16} {:>14} {:>10}   {:<12} {:>14}   {:>6.3f}   {:<8} {}\n", "persist", mib_per_s(v.persist_median),
               "", "direct write", mib_per_s(*v.direct_median), v.ratio_direct,
               fmt::format(">= {:.2f}", kPersistTarget), v.ratio_direct >= kPersistTarget ? "met" : "MISSED");
  fmt::print("{:<16} {:>14} {:>10}   {:<12} {:>14}   {:>6.3f}   {:<8} {}\n", "persist", mib_per_s(v.persist_median), "",
             "raw write", mib_per_s(v.raw_median), v.ratio_raw, fmt::format(">= {:.2f}", kPersistTarget),
             v.ratio_raw >= kPersistTarget ? "met" : "MISSED");
  if (!restore_s.empty())
    fmt::print("{:<16} {:>14} {:>10}   {:<12} {:>14}   {:>6.3f}   {:<8} {}\n", "restore",
               mib_per_s(static_cast<double>(config.size) / median(restore_s)), "",
               read_direct ? "direct read" : "cold read", mib_per_s(static_cast<double>(config.size) / median(read_s)),
               read_ratio, fmt::format(">= {:.2f}", kReadTarget), read_met ? "met" : "MISSED");
  fmt::print("(the persist target holds against the faster baseline, {}: {}", v.baseline, v.met ? "met" : "MISSED");
  if (!has_direct) fmt::print("; {}'s filesystem refuses O_DIRECT, so there is no direct write baseline", config.dir);
  fmt::print(")\n");
  fmt::print(
      "(median of the per-save ratios against the baseline taken next to each save: stall {:.3f}, "
      "persist {:.3f}, restore {:.3f})\n",
      stall_paired, v.paired_median, read_paired);
  fmt::print("(restore: the newest checkpoint into the registered state, each checked byte for byte)\n");
  if (!report.kept.empty()) {
    fmt::print("\nkept in {}:", config.dir);
    for (const auto& name : report.kept) fmt::print(" {}", name);
    fmt::print("\n");
  }
}

}  // namespace
}  // namespace bench

const args::Spec& ckpt_bench_spec() {
  using args::value_flag;
  static const args::Spec spec{
      "frugal ckpt bench",
      "benchmark saves against memcpy and raw disk writes",
      "Benchmarks checkpoint saves of a synthetic state of BYTES against memcpy and raw disk writes of the same "
      "bytes (through the page cache, and with O_DIRECT: the disk's bandwidth), interleaved. DIR is scratch space: it "
      "must hold no checkpoints (under --prefix), unless --keep. BYTES "
      "and B are byte counts: 1048576, 64M, 1G, ... (binary: 64M = 64 MiB).",
      {{"DIR", "a scratch directory (created when absent)"}},
      {args::required(value_flag("--size", "BYTES", "the state saved each time")),
       value_flag("--kind", "heartbeat|full", "the kind of checkpoint saved (default heartbeat)"),
       value_flag("--count", "N", "saves, 1 to 100000 (default 3)"),
       args::switch_flag("--json", "the result as a JSON object on stdout (an error too)"),
       args::switch_flag("--keep",
                         "leave the checkpoints (retention off unless --keep-* are given); may add to "
                         "existing ones"),
       value_flag("--keep-heartbeats", "N", "heartbeat checkpoints the engine keeps (engine default: 2)"),
       value_flag("--keep-full", "M", "full checkpoints the engine keeps (engine default: 2)"),
       value_flag("--shard-bytes", "B", "the engine's shard size, 4096 to 1T"),
       value_flag("--prefix", "P",
                  "the engine's key prefix inside DIR: its checkpoints are the directories DIR/P/<name>"),
       value_flag("--restore", "verified|in_place",
                  "the engine's restore mode (default verified: every byte checked before any tensor is written)"),
       value_flag(
           "--comm", "NAME",
           "run under `mpirun -np N`: the N ranks save one sharded state of BYTES together (comm strategy "
           "NAME, e.g. mpi), against N concurrent raw and direct writes, then restore it at N and at N-1 ranks")}};
  return spec;
}

int cmd_ckpt_bench(const std::vector<std::string>& args) {
  using namespace bench;
  const Config config = read_config(args);
  if (!config.engine.comm_backend.empty()) return run_ranks(config);
  const bool dir_existed = is_directory(config.dir);
  if (!dir_existed && ::access(config.dir.c_str(), F_OK) == 0) {
    fmt::print(stderr, "frugal ckpt bench: '{}' exists and is not a directory\n", config.dir);
    return kExitProblem;
  }

  // Declared before the session: registered memory outlives the engine.
  State state;
  HugeBuffer memcpy_dst;
  CkptSession session;
  const std::string raw_path = fmt::format("{}/.frugal-bench-raw.{}", config.dir, ::getpid());
  std::string key_prefix = config.engine.prefix;
  if (!key_prefix.empty() && key_prefix.back() != '/') key_prefix += '/';
  Report report;
  report.config = &config;
  std::vector<std::string> created;  // every checkpoint this run started, for the cleanup
  auto cleanup = [&] {
    ::unlink(raw_path.c_str());
    if (!config.keep && session.store)
      for (const auto& name : created) remove_keys_under(session.store.get(), key_prefix + name + "/");
    // The engine's writer claim (frugal/checkpoint.h: "<prefix>writer-claims/"),
    // which the bench's saves made under its own prefix.
    if (!config.keep && session.store) remove_keys_under(session.store.get(), key_prefix + "writer-claims/");
    if (!dir_existed && !config.keep) ::rmdir(config.dir.c_str());  // only if we made it and it is empty again
  };

  try {
    session = open_session(config.dir, config.engine);  // creates DIR when absent
    check_resources(config, 3.0, "state, snapshot and memcpy baseline");
    // The engine's retention would delete checkpoints already here: only
    // an empty location is scratch space, unless --keep asks to add to it.
    const Existing existing = existing_checkpoints(session.engine.get());
    require_scratch(config, existing);
    // Steps continue after what is there, as a resumed run's would.
    const uint64_t first_step = existing.max_step + 1;

    state = make_state(config.size);
    report.tensors = state.sizes.size();
    memcpy_dst = allocate(config.size, "memcpy baseline");
    std::memset(memcpy_dst.get(), 0, static_cast<size_t>(config.size));  // fault in: measure the copy, not page faults
    register_state(session.engine.get(), state);

    for (int64_t i = 0; i < config.count; ++i) {
      Iteration it;
      auto baselines = [&] {
        it.memcpy_seconds = time_memcpy(memcpy_dst.get(), state.data.get(), config.size);
        it.raw_write_seconds = *time_raw_write(raw_path, state.data.get(), config.size, RawWrite::kBuffered);
        ::unlink(raw_path.c_str());
        it.direct_write_seconds = time_raw_write(raw_path, state.data.get(), config.size, RawWrite::kDirect);
        ::unlink(raw_path.c_str());
      };
      auto engine = [&] {
        const uint64_t step = first_step + static_cast<uint64_t>(i);
        const std::string metadata = fmt::format("frugal ckpt bench, step {}", step);
        frugal_ckpt_save_args save{};
        save.struct_size = sizeof(save);
        save.kind = config.kind;
        save.step = step;
        save.metadata = metadata.data();
        save.metadata_size = metadata.size();
        frugal_ckpt_save_result saved{};
        saved.struct_size = sizeof(saved);
        host::check(frugal_ckpt_save(session.engine.get(), &save, &saved));
        it.name = saved.name;
        it.snapshot_seconds = saved.snapshot_seconds;
        created.push_back(it.name);
        frugal_ckpt_persist_result persisted{};
        persisted.struct_size = sizeof(persisted);
        host::check(frugal_ckpt_wait(session.engine.get(), &persisted));
        it.persist_seconds = persisted.persist_seconds;
        it.persist_bytes = persisted.bytes;
      };
      alternate(i, baselines, engine);
      report.iterations.push_back(it);
      // Training moves on: the next checkpoint holds different bytes.
      for (const uint64_t offset : state.offsets) state.data.get()[offset] ^= 0x5a;
    }
    // Restore: the newest checkpoint back into the registered state, against
    // a read of the same bytes from a file in DIR, alternating; every
    // restore is checked byte for byte against what that read returned.
    for (const uint64_t offset : state.offsets) state.data.get()[offset] ^= 0x5a;  // as last saved
    if (!time_raw_write(raw_path, state.data.get(), config.size, RawWrite::kDirect))
      (void)time_raw_write(raw_path, state.data.get(), config.size, RawWrite::kBuffered);
    for (int64_t i = 0; i < config.count; ++i) {
      RestoreSample sample;
      auto baseline = [&] {
        const RawRead read = time_raw_read(raw_path, memcpy_dst.get(), config.size);
        sample.read_seconds = read.seconds;
        sample.direct_read = read.direct;
      };
      auto engine = [&] {
        for (const uint64_t offset : state.offsets) state.data.get()[offset] ^= 0xa5;  // restore must undo it
        char metadata[256];  // the saves' "frugal ckpt bench, step N"
        size_t metadata_size = 0;
        const auto start = Clock::now();
        host::check(frugal_ckpt_restore(session.engine.get(), nullptr, FRUGAL_CKPT_ALL_KINDS, metadata, sizeof metadata,
                                        &metadata_size, nullptr));
        sample.restore_seconds = seconds_since(start);
      };
      alternate(i, baseline, engine);
      if (std::memcmp(state.data.get(), memcpy_dst.get(), static_cast<size_t>(config.size)) != 0)
        fail(FRUGAL_ERR_DATA_CORRUPTED, "the restored state differs from the bytes last saved");
      report.restores.push_back(sample);
    }
    if (config.keep) report.kept = existing_checkpoints(session.engine.get()).names;
    cleanup();
  } catch (...) {
    try {
      cleanup();
    } catch (...) {
      // The original failure is the one worth reporting.
    }
    throw;
  }
  print_report(report);
  return kExitOk;
}

}  // namespace frugal::cli
