// `mpirun -np N frugal ckpt bench DIR --size BYTES --comm mpi`: the job-of-
// ranks form of the checkpoint bench. The N ranks hold one state of BYTES
// together (float32 tensors split along dim 0, a slice per rank) and save
// it collectively with an engine on the comm; each iteration also times
// the baselines, N concurrent raw writes of the same bytes (each rank its
// slice, one file per rank, write + fsync), through the page cache and
// with O_DIRECT, in alternating order; the target holds against the
// faster. Both
// sides start from a barrier and end when the slowest rank is done (an
// all-reduce of the maxima), so the ratio is of aggregate throughputs.
//
// Then the restore at another world size against the same one: N-1 ranks
// (a sub-group) restore the job's checkpoint, written by N ranks, so
// their slices straddle its chunks; the baseline is the same N-1 ranks
// restoring the same state saved by N-1 ranks (chunks that match their
// slices): same ranks, cores and bytes, alternating, timed the same way.
// Every restored element is checked against the values saved.
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "ckpt_bench.hpp"
#include "cli_errors.hpp"
#include "commands.hpp"
#include "json_text.hpp"

namespace frugal::cli::bench {
namespace {

constexpr double kRestoreTarget = 1.20;                        // restore at N-1 ranks / at N ranks, at most
constexpr uint64_t kGlobalTensorTarget = uint64_t{128} << 20;  // bytes per global tensor, roughly

// The value of float `index` of the global state: any rank computes any
// element, so a restore is checked without a copy of the whole state.
float value_at(uint64_t index) {
  uint64_t z = index * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<float>(static_cast<int64_t>(z >> 40) - (int64_t{1} << 23)) * 0x1p-24f;
}

// [begin, end) of part p of n over `extent`, the first extent % n parts one longer.
std::pair<uint64_t, uint64_t> part_of(uint64_t extent, uint64_t p, uint64_t n) {
  const uint64_t base = extent / n, extra = extent % n;
  const uint64_t begin = p * base + std::min(p, extra);
  return {begin, begin + base + (p < extra ? 1 : 0)};
}

// The global state's tensors (lengths in floats) and one rank's slices of
// them, packed in one buffer.
struct Slices {
  std::vector<uint64_t> global_lengths;  // per tensor
  std::vector<uint64_t> starts;          // per tensor: the global float index of element 0
  std::vector<uint64_t> begins, ends;    // this rank's range of each tensor
  std::vector<uint64_t> at;              // where each slice starts in `data`, in floats
  HugeBuffer data;
  uint64_t floats = 0;

  Slices(uint64_t global_floats, uint64_t rank, uint64_t ranks) {
    const uint64_t tensors =
        std::clamp<uint64_t>((global_floats * 4 + kGlobalTensorTarget - 1) / kGlobalTensorTarget, 1, uint64_t{4096});
    const uint64_t per = (global_floats + tensors - 1) / tensors;
    for (uint64_t start = 0; start < global_floats; start += per) {
      const uint64_t length = std::min(per, global_floats - start);
      const auto [begin, end] = part_of(length, rank, ranks);
      global_lengths.push_back(length);
      starts.push_back(start);
      begins.push_back(begin);
      ends.push_back(end);
      at.push_back(floats);
      floats += end - begin;
    }
    data = allocate(std::max<uint64_t>(floats, 1) * 4, "this rank's slices");
  }
  [[nodiscard]] float* slice(size_t t) const { return reinterpret_cast<float*>(data.get()) + at[t]; }
  void fill() const {
    for (size_t t = 0; t < at.size(); ++t)
      for (uint64_t i = begins[t]; i < ends[t]; ++i) slice(t)[i - begins[t]] = value_at(starts[t] + i);
  }
  // Elements that differ from the saved values.
  [[nodiscard]] uint64_t wrong() const {
    uint64_t bad = 0;
    for (size_t t = 0; t < at.size(); ++t)
      for (uint64_t i = begins[t]; i < ends[t]; ++i) {
        // Bit for bit: the bytes restored are the bytes saved.
        const auto expected = std::bit_cast<uint32_t>(value_at(starts[t] + i));
        bad += std::bit_cast<uint32_t>(slice(t)[i - begins[t]]) != expected ? 1 : 0;
      }
    return bad;
  }
  void register_in(frugal_ckpt_engine* engine) const {
    for (size_t t = 0; t < at.size(); ++t) {
      const int64_t shape[1] = {static_cast<int64_t>(ends[t] - begins[t])};
      const int64_t global[1] = {static_cast<int64_t>(global_lengths[t])};
      const int64_t offsets[1] = {static_cast<int64_t>(begins[t])};
      frugal_tensor view{};
      view.struct_size = sizeof(view);
      view.data = data.get();
      view.byte_offset = at[t] * 4;
      view.dtype = FRUGAL_DTYPE_FLOAT32;
      view.ndim = 1;
      view.device = frugal_device{FRUGAL_DEVICE_CPU, 0};
      view.shape = shape;
      frugal_ckpt_slice slice{};
      slice.struct_size = sizeof(slice);
      slice.ndim = 1;
      slice.global_shape = global;
      slice.offsets = offsets;
      host::check(frugal_ckpt_register_slice(engine, fmt::format("bench/tensor{:04}", t).c_str(), &view, &slice, 0));
    }
  }
};

// The slowest rank's value (every rank gets it).
double slowest(frugal_comm* comm, double seconds) {
  frugal_tensor view{};
  const int64_t shape[1] = {1};
  view.struct_size = sizeof(view);
  view.data = &seconds;
  view.dtype = FRUGAL_DTYPE_FLOAT64;
  view.ndim = 1;
  view.shape = shape;
  view.device = frugal_device{FRUGAL_DEVICE_CPU, 0};
  host::check(frugal_comm_all_reduce(comm, &view, &view, FRUGAL_REDUCE_MAX));
  return seconds;
}

// Restores the newest checkpoint into the registered slices; its step.
uint64_t restore_newest(frugal_ckpt_engine* engine) {
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_restore(engine, nullptr, FRUGAL_CKPT_ALL_KINDS, nullptr, 0, nullptr, &info));
  return info.step;
}

struct Sample {
  double persist_seconds = 0, raw_seconds = 0;  // slowest rank's
  std::optional<double> direct_seconds;         // slowest rank's; absent: a rank's filesystem refuses O_DIRECT
  std::string name;
};

void print_ranks_report(const Config& config, int32_t ranks, uint64_t bytes, const std::vector<Sample>& saves,
                        const std::vector<double>& restore_same, const std::vector<double>& restore_resharded) {
  std::vector<double> persist_bps, raw_bps, direct_bps, restore_pairs;
  for (const auto& s : saves) {
    persist_bps.push_back(static_cast<double>(bytes) / s.persist_seconds);
    raw_bps.push_back(static_cast<double>(bytes) / s.raw_seconds);
    if (s.direct_seconds) direct_bps.push_back(static_cast<double>(bytes) / *s.direct_seconds);
  }
  for (size_t i = 0; i < restore_resharded.size(); ++i) restore_pairs.push_back(restore_resharded[i] / restore_same[i]);
  const PersistVerdict v = judge_persist(persist_bps, raw_bps, direct_bps);
  const bool has_direct = v.direct_median.has_value();
  const bool restored = !restore_resharded.empty();
  const double restore_ratio = restored ? median(restore_resharded) / median(restore_same) : 0;
  const bool restore_met = restored && restore_ratio <= kRestoreTarget;
  if (config.json) {
    json::Json names = json::Json::array();
    for (const auto& s : saves) names.push_back(s.name);
    json::Json out = {{"dir", config.dir},
                      {"comm", config.engine.comm_backend},
                      {"ranks", ranks},
                      {"size_bytes", bytes},
                      {"count", config.count},
                      {"kind", kind_name(config.kind)},
                      {"checkpoints", std::move(names)}};
    out.update(persist_json(v, persist_bps, raw_bps, direct_bps));
    if (restored) {
      out.update({{"restore_ranks", ranks - 1},
                  {"restore_seconds_written_by_same_ranks", restore_same},
                  {"restore_seconds_written_by_more_ranks", restore_resharded},
                  {"restore_ratio", restore_ratio},
                  {"restore_target", kRestoreTarget},
                  {"restore_target_met", restore_met},
                  {"restore_ratio_paired_median", median(restore_pairs)}});
    }
    fmt::print("{}\n", json::json_text(out));
    return;
  }
  fmt::print("frugal ckpt bench: {} of {} state over {} ranks ({}), {} save{}, interleaved A/B with the baselines\n",
             human_bytes(static_cast<double>(bytes)), kind_name(config.kind), ranks, config.engine.comm_backend,
             config.count, config.count == 1 ? "" : "s");
  fmt::print("store: fs at {}\n\n", config.dir);
  fmt::print("aggregate throughputs: all N ranks' bytes over the slowest rank's time\n\n");
  fmt::print("{:>5}  {:>10}  {:>14}  {:>14}  {:>14}  {:>12}  {:>12}\n", "save", "persist", "aggregate", "raw write",
             "direct write", fmt::format("{}<-{} rest.", ranks - 1, ranks - 1),
             fmt::format("{}<-{} rest.", ranks - 1, ranks));
  for (size_t i = 0; i < saves.size(); ++i)
    fmt::print("{:>5}  {:>10}  {:>14}  {:>14}  {:>14}  {:>12}  {:>12}\n", i + 1,
               human_seconds(saves[i].persist_seconds), mib_per_s(persist_bps[i]), mib_per_s(raw_bps[i]),
               has_direct ? mib_per_s(direct_bps[i]) : "n/a", restored ? human_seconds(restore_same[i]) : "-",
               restored ? human_seconds(restore_resharded[i]) : "-");
  fmt::print("\n{:<18} {:>14}   {:<26} {:>14}   {:>6}   {:<8}\n", "", "median", "baseline", "median", "ratio",
             "target");
  if (has_direct)
    fmt::print("{:<18} {:>14}   {:<26} {:>14}   {:>6.3f}   {:<8} {}\n", "persist, N ranks", mib_per_s(v.persist_median),
               "N concurrent direct writes", mib_per_s(*v.direct_median), v.ratio_direct,
               fmt::format(">= {:.2f}", kPersistTarget), v.ratio_direct >= kPersistTarget ? "met" : "MISSED");
  fmt::print("{:<18} {:>14}   {:<26} {:>14}   {:>6.3f}   {:<8} {}\n", "persist, N ranks", mib_per_s(v.persist_median),
             "N concurrent raw writes", mib_per_s(v.raw_median), v.ratio_raw, fmt::format(">= {:.2f}", kPersistTarget),
             v.ratio_raw >= kPersistTarget ? "met" : "MISSED");
  if (restored) {
    fmt::print("{:<18} {:>14}   {:<26} {:>14}   {:>6.3f}   {:<8} {}\n",
               fmt::format("restore {} <- {}", ranks - 1, ranks), human_seconds(median(restore_resharded)),
               fmt::format("restore {} <- {}", ranks - 1, ranks - 1), human_seconds(median(restore_same)),
               restore_ratio, fmt::format("<= {:.2f}", kRestoreTarget), restore_met ? "met" : "MISSED");
    fmt::print("(restore M <- N: M ranks restore a checkpoint N ranks wrote)\n");
  } else {
    fmt::print("(the restore at another world size needs at least 2 ranks)\n");
  }
  fmt::print("(the persist target holds against the faster baseline, {}: {}{})\n", v.baseline, v.met ? "met" : "MISSED",
             has_direct ? "" : "; a rank's filesystem refuses O_DIRECT, so there is no direct write baseline");
  fmt::print("(median of the per-iteration ratios: persist {:.3f}{})\n", v.paired_median,
             restored ? fmt::format(", restore {:.3f}", median(restore_pairs)) : "");
}

}  // namespace

int run_ranks(const Config& config) {
  const bool seen_before = is_directory(config.dir);
  // Declared before the sessions: registered memory outlives the engines.
  std::optional<Slices> mine, fewer;
  CkptSession session = open_session(config.dir, config.engine);  // collective over the job's ranks
  frugal_comm* comm = session.comm.get();
  // Each rank looked before its own open_session made DIR: if any found it
  // absent, this job made it (another rank may have made it first).
  const bool dir_existed = slowest(comm, seen_before ? 0.0 : 1.0) == 0.0;
  const int32_t rank = frugal_comm_rank(comm), ranks = frugal_comm_size(comm);
  const std::string raw_path = fmt::format("{}/.frugal-bench-raw.{}.{}", config.dir, ::getpid(), rank);
  std::string key_prefix = config.engine.prefix;
  if (!key_prefix.empty() && key_prefix.back() != '/') key_prefix += '/';
  // The restore baseline's checkpoint (saved by N-1 ranks): the bench's
  // own, removed even with --keep.
  const std::string baseline_prefix = key_prefix + "frugal-bench-restore-baseline/";
  std::vector<Sample> saves;
  std::vector<double> restore_same, restore_resharded;
  std::vector<std::string> created;
  auto cleanup = [&] {
    ::unlink(raw_path.c_str());
    if (rank != 0) return;  // the job's writer, rank 0, removes what the job wrote
    remove_keys_under(session.store.get(), baseline_prefix);
    ::rmdir((config.dir + "/" + baseline_prefix).c_str());
    if (config.keep) return;
    for (const auto& name : created) remove_keys_under(session.store.get(), key_prefix + name + "/");
    remove_keys_under(session.store.get(), key_prefix + "writer-claims/");
    if (!dir_existed) ::rmdir(config.dir.c_str());
  };
  try {
    // Every rank checks (with a machine each, or all on one); all stop if
    // any refuses, or the others would wait for it in the next collective.
    // Memory as if every rank shares this machine: the job's state and
    // snapshot, then the restoring ranks' state and their two engines'
    // snapshots.
    std::exception_ptr refused;
    try {
      check_resources(config, 5.0, "the job's state and snapshot, and the restores' state and two snapshots");
    } catch (...) {
      refused = std::current_exception();
    }
    if (slowest(comm, refused ? 1.0 : 0.0) > 0) {
      if (refused) std::rethrow_exception(refused);
      fail(FRUGAL_ERR_FAILED_PRECONDITION, "another rank refused --size for this machine (see its message)");
    }
    const Existing existing = existing_checkpoints(session.engine.get());
    require_scratch(config, existing);
    const uint64_t global_floats = config.size / 4;
    if (global_floats == 0) throw UsageError("--size must hold at least one float32 (4 bytes) with --comm");
    const uint64_t bytes = global_floats * 4;
    mine.emplace(global_floats, static_cast<uint64_t>(rank), static_cast<uint64_t>(ranks));
    mine->fill();
    mine->register_in(session.engine.get());
    const uint64_t my_bytes = mine->floats * 4;
    for (int64_t i = 0; i < config.count; ++i) {
      Sample sample;
      auto raw = [&] {
        host::check(frugal_comm_barrier(comm));
        sample.raw_seconds = slowest(comm, *time_raw_write(raw_path, mine->data.get(), my_bytes, RawWrite::kBuffered));
        ::unlink(raw_path.c_str());
        host::check(frugal_comm_barrier(comm));
        const auto direct = time_raw_write(raw_path, mine->data.get(), my_bytes, RawWrite::kDirect);
        ::unlink(raw_path.c_str());
        // Both reductions on every rank; the baseline counts only if no
        // rank's filesystem refused O_DIRECT.
        const double direct_refused = slowest(comm, direct ? 0.0 : 1.0);
        const double direct_slowest = slowest(comm, direct.value_or(0.0));
        if (direct_refused == 0.0) sample.direct_seconds = direct_slowest;
      };
      auto engine = [&] {
        const uint64_t step = existing.max_step + 1 + static_cast<uint64_t>(i);
        frugal_ckpt_save_args save{};
        save.struct_size = sizeof(save);
        save.kind = config.kind;
        save.step = step;
        frugal_ckpt_save_result saved{};
        saved.struct_size = sizeof(saved);
        host::check(frugal_comm_barrier(comm));
        host::check(frugal_ckpt_save(session.engine.get(), &save, &saved));
        created.emplace_back(saved.name);
        sample.name = saved.name;
        frugal_ckpt_persist_result persisted{};
        persisted.struct_size = sizeof(persisted);
        host::check(frugal_ckpt_wait(session.engine.get(), &persisted));
        sample.persist_seconds = slowest(comm, persisted.persist_seconds);
      };
      alternate(i, raw, engine);
      saves.push_back(sample);
    }

    if (ranks >= 2) {
      // M = N-1 ranks (a sub-group; the last rank sits out, joining only
      // the barriers and the maxima) restore the job's checkpoint, whose
      // chunks their slices straddle, against the same state saved by M
      // ranks (under a prefix of the bench's own): the same restoring
      // ranks, cores and bytes, so the ratio is the cost of resharding.
      frugal_comm* sub = nullptr;
      host::check(frugal_comm_split(comm, rank < ranks - 1 ? 0 : FRUGAL_COMM_COLOR_NONE, rank, &sub));
      host::CommPtr sub_comm(sub);
      EnginePtr resharding, same;
      auto make_engine = [&](const std::string& prefix) {
        auto options = host::make_options();
        if (!prefix.empty()) host::check(frugal_options_set_string(options.get(), "prefix", prefix.c_str()));
        host::check(frugal_options_set_comm(options.get(), "comm", sub));
        frugal_ckpt_engine* raw_engine = nullptr;
        host::check(frugal_ckpt_engine_create(session.store.get(), options.get(), &raw_engine));
        EnginePtr engine(raw_engine);
        fewer->register_in(engine.get());
        return engine;
      };
      const uint64_t newest = existing.max_step + static_cast<uint64_t>(config.count);
      if (sub != nullptr) {
        fewer.emplace(global_floats, static_cast<uint64_t>(rank), static_cast<uint64_t>(ranks - 1));
        fewer->fill();
        resharding = make_engine(config.engine.prefix);
        same = make_engine(baseline_prefix);
        frugal_ckpt_save_args save{};
        save.struct_size = sizeof(save);
        save.kind = config.kind;
        save.flags = FRUGAL_CKPT_SAVE_WAIT;
        save.step = newest;
        host::check(frugal_ckpt_save(same.get(), &save, nullptr));
      }
      auto timed_restore = [&](frugal_ckpt_engine* engine) {
        if (engine != nullptr) std::memset(fewer->data.get(), 0, fewer->floats * 4);
        host::check(frugal_comm_barrier(comm));
        double seconds = 0;
        if (engine != nullptr) {
          const auto start = Clock::now();
          const uint64_t step = restore_newest(engine);
          seconds = seconds_since(start);
          if (step != newest)
            fail(FRUGAL_ERR_INTERNAL, fmt::format("rank {} restored step {}, not {}", rank, step, newest));
          if (const uint64_t bad = fewer->wrong(); bad != 0)
            fail(FRUGAL_ERR_DATA_CORRUPTED,
                 fmt::format("rank {}: {} restored elements differ from those saved", rank, bad));
        }
        return slowest(comm, seconds);
      };
      for (int64_t i = 0; i < config.count; ++i) {
        auto baseline = [&] { restore_same.push_back(timed_restore(same.get())); };
        auto resharded = [&] { restore_resharded.push_back(timed_restore(resharding.get())); };
        alternate(i, baseline, resharded);
      }
    }
    host::check(frugal_comm_barrier(comm));  // every rank is done before rank 0 cleans up
    cleanup();
    if (rank == 0) print_ranks_report(config, ranks, bytes, saves, restore_same, restore_resharded);
  } catch (...) {
    try {
      cleanup();
    } catch (...) {
      // The original failure is the one worth reporting.
    }
    throw;
  }
  return kExitOk;
}

}  // namespace frugal::cli::bench
