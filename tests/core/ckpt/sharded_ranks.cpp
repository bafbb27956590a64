// Sharded checkpoints across ranks, run under mpirun (CMakeLists.txt):
//   sharded_ranks save DIR      N ranks save two checkpoints of a job
//   sharded_ranks restore DIR   M ranks (any M) restore the newest
//   sharded_ranks plain DIR     one process, no comm, restores it whole
//   sharded_ranks disagree DIR  ranks save different steps: refused on all
//   sharded_ranks corrupt DIR   one rank's shard damaged: all restore the older
// Every tensor's element i of checkpoint step s holds value(name, i, s),
// computed on each rank, so a restore is checked element by element
// against the global tensor without trusting anything the engine says.
// The split of each global tensor depends on the world size, so a restore
// at M != N reads chunk boundaries that fall inside its slices.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "frugal/sdk/host.hpp"

namespace host = frugal::host;

namespace {

// A program, not a Catch2 test (it runs under mpirun): the few helpers of
// tests/test_helpers.hpp and ckpt_fixture.hpp it needs, without Catch2.
std::string builtin_path(const std::string& name) {
  return std::string(FRUGAL_BUILTIN_PLUGIN_DIR) + "/" + name + ".so";
}

struct Outcome {
  int32_t code;
  std::string message;
};
Outcome outcome(frugal_error* error) {
  Outcome result{frugal_error_code(error), error != nullptr ? frugal_error_message(error) : ""};
  frugal_error_destroy(error);
  return result;
}

struct StoreDeleter {
  void operator()(frugal_store* s) const noexcept { frugal_store_destroy(s); }
};
struct EngineDeleter {
  void operator()(frugal_ckpt_engine* e) const noexcept { frugal_ckpt_engine_destroy(e); }
};

frugal_ckpt_save_args save_args(uint64_t step, const std::string& metadata) {
  frugal_ckpt_save_args args{};
  args.struct_size = sizeof(args);
  args.kind = FRUGAL_CKPT_FULL;
  args.flags = FRUGAL_CKPT_SAVE_WAIT;
  args.step = step;
  args.metadata = metadata.data();
  args.metadata_size = metadata.size();
  return args;
}

std::vector<std::string> not_restored(frugal_ckpt_engine* engine, const frugal_ckpt_info& info) {
  std::vector<std::string> names;
  char name[FRUGAL_CKPT_TENSOR_NAME_CAPACITY];
  for (uint32_t i = 0; i < info.not_restored_count; ++i) {
    host::check(frugal_ckpt_restore_report(engine, i, name, sizeof(name)));
    names.emplace_back(name);
  }
  return names;
}

int g_failures = 0;
int g_rank = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "rank %d: FAILED: %s\n", g_rank, what.c_str());
    ++g_failures;
  }
}

// A deterministic value per tensor, element and step, as raw bits.
uint64_t value(const std::string& name, uint64_t element, uint64_t step) {
  uint64_t x = step * 0x9E3779B97F4A7C15ULL + element;
  for (const char c : name) x = (x ^ static_cast<uint8_t>(c)) * 0x100000001B3ULL;
  x ^= x >> 29;
  return x * 0xBF58476D1CE4E5B9ULL;
}

// [begin, end) of part p of n over `extent`, the first extent % n parts one longer.
std::pair<int64_t, int64_t> part_of(int64_t extent, int p, int n) {
  const int64_t base = extent / n;
  const int64_t extra = extent % n;
  const int64_t begin = p * base + std::min<int64_t>(p, extra);
  return {begin, begin + base + (p < extra ? 1 : 0)};
}

// One registered tensor: its global shape, this rank's box, its bytes.
struct Slice {
  std::string name;
  int32_t dtype = 0;
  size_t element = 0;  // bytes
  std::vector<int64_t> global, offsets, shape;
  bool replicated = false;
  bool sliced = true;  // false: rank-local (frugal_ckpt_register)
  std::vector<uint8_t> bytes;
  frugal_tensor view{};

  // Row-major global index of local element i.
  uint64_t global_index(uint64_t i) const {
    std::vector<int64_t> at(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
      at[d] = static_cast<int64_t>(i % static_cast<uint64_t>(shape[d])) + offsets[d];
      i /= static_cast<uint64_t>(shape[d]);
    }
    uint64_t g = 0;
    for (size_t d = 0; d < at.size(); ++d) g = g * static_cast<uint64_t>(global[d]) + static_cast<uint64_t>(at[d]);
    return g;
  }
  uint64_t count() const {
    uint64_t n = 1;
    for (const int64_t e : shape) n *= static_cast<uint64_t>(e);
    return n;
  }
  std::string key() const { return sliced ? name : name + "@" + std::to_string(g_rank); }
  void fill(uint64_t step) {
    for (uint64_t i = 0; i < count(); ++i) {
      const uint64_t v = value(key(), sliced ? global_index(i) : i, step);
      std::memcpy(bytes.data() + i * element, &v, element);
    }
  }
  // Elements that differ from step's values.
  uint64_t wrong(uint64_t step) const {
    uint64_t bad = 0;
    for (uint64_t i = 0; i < count(); ++i) {
      const uint64_t v = value(key(), sliced ? global_index(i) : i, step);
      bad += std::memcmp(bytes.data() + i * element, &v, element) != 0 ? 1 : 0;
    }
    return bad;
  }
};

// The job's tensors as rank `rank` of `size` holds them.
std::vector<Slice> job_tensors(int rank, int size) {
  std::vector<Slice> out;
  auto make = [](std::string name, int32_t dtype, size_t element, std::vector<int64_t> global) {
    Slice s;
    s.name = std::move(name);
    s.dtype = dtype;
    s.element = element;
    s.offsets.assign(global.size(), 0);
    s.shape = global;
    s.global = std::move(global);
    return s;
  };
  auto split = [&](std::string name, int32_t dtype, size_t element, std::vector<int64_t> global, size_t dim) {
    Slice s = make(std::move(name), dtype, element, std::move(global));
    const auto [begin, end] = part_of(s.global[dim], rank, size);
    s.offsets[dim] = begin;
    s.shape[dim] = end - begin;
    out.push_back(std::move(s));
  };
  split("layer0/w", FRUGAL_DTYPE_FLOAT32, 4, {13, 7}, 0);   // rows, uneven
  split("layer0/v", FRUGAL_DTYPE_BFLOAT16, 2, {5, 11}, 1);  // columns, uneven
  split("emb", FRUGAL_DTYPE_INT64, 8, {9, 3, 4}, 0);        // more ranks than some splits hold rows for
  Slice bias = make("bias", FRUGAL_DTYPE_FLOAT32, 4, {17});
  bias.replicated = true;
  out.push_back(std::move(bias));
  Slice own = make("rng", FRUGAL_DTYPE_INT64, 8, {4});
  own.sliced = false;
  out.push_back(std::move(own));
  for (auto& s : out) {
    s.bytes.assign(s.count() * s.element, 0);
    s.view.struct_size = sizeof(frugal_tensor);
    s.view.data = s.bytes.data();
    s.view.dtype = s.dtype;
    s.view.ndim = static_cast<int32_t>(s.shape.size());
    s.view.shape = s.shape.data();
    s.view.device = {FRUGAL_DEVICE_CPU, 0};
  }
  return out;
}

void register_all(frugal_ckpt_engine* engine, std::vector<Slice>& tensors, bool with_slices) {
  for (auto& s : tensors) {
    if (!with_slices || !s.sliced) {
      host::check(frugal_ckpt_register(engine, s.name.c_str(), &s.view, 0));
      continue;
    }
    frugal_ckpt_slice slice{};
    slice.struct_size = sizeof(slice);
    slice.ndim = s.view.ndim;
    slice.replicated = s.replicated ? 1 : 0;
    slice.global_shape = s.global.data();
    slice.offsets = s.offsets.data();
    host::check(frugal_ckpt_register_slice(engine, s.name.c_str(), &s.view, &slice, 0));
  }
}

std::string metadata_of(uint64_t step, int rank) {
  return "step " + std::to_string(step) + " rank " + std::to_string(rank);
}

struct Job {
  host::ContextPtr context = host::make_context();
  std::unique_ptr<frugal_store, StoreDeleter> store;
  host::CommPtr comm;
  std::unique_ptr<frugal_ckpt_engine, EngineDeleter> engine;
  Job(const std::string& dir, bool with_comm) {
    host::check(frugal_context_load_plugin(context.get(), builtin_path("store_fs").c_str()));
    auto store_options = host::make_options();
    host::check(frugal_options_set_string(store_options.get(), "root", dir.c_str()));
    frugal_store* s = nullptr;
    host::check(frugal_store_create(context.get(), "fs", store_options.get(), &s));
    store.reset(s);
    auto options = host::make_options();
    host::check(frugal_options_set_int(options.get(), "shard_bytes", 4096));
    if (with_comm) {
      host::check(frugal_context_load_plugin(context.get(), builtin_path("comm_mpi").c_str()));
      comm = host::make_comm(context.get(), "mpi", nullptr);
      host::check(frugal_comm_set_timeout(comm.get(), 60000));
      host::check(frugal_options_set_comm(options.get(), "comm", comm.get()));
    }
    frugal_ckpt_engine* e = nullptr;
    host::check(frugal_ckpt_engine_create(store.get(), options.get(), &e));
    engine.reset(e);
  }
};

void save(const std::string& dir, int rank, int size) {
  Job job(dir, true);
  auto tensors = job_tensors(rank, size);
  register_all(job.engine.get(), tensors, true);
  for (const uint64_t step : {100, 200}) {
    for (auto& s : tensors) s.fill(step);
    const std::string metadata = metadata_of(step, rank);
    const auto args = save_args(step, metadata);
    frugal_ckpt_save_result result{};
    result.struct_size = sizeof(result);
    host::check(frugal_ckpt_save(job.engine.get(), &args, &result));
    expect(std::string(result.name).find(std::to_string(step)) != std::string::npos, "save name has the step");
  }
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_latest(job.engine.get(), FRUGAL_CKPT_ALL_KINDS, &info));
  expect(info.step == 200 && info.status == FRUGAL_CKPT_VALID, "the newest checkpoint is step 200 and verifies");
}

void restore(const std::string& dir, int rank, int size, bool with_comm, int written_by, uint64_t expected = 200) {
  Job job(dir, with_comm);
  auto tensors = job_tensors(rank, size);
  register_all(job.engine.get(), tensors, with_comm);
  for (auto& s : tensors) std::memset(s.bytes.data(), 0xA5, s.bytes.size());
  std::vector<char> metadata(256);
  size_t metadata_size = 0;
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_restore(job.engine.get(), nullptr, FRUGAL_CKPT_ALL_KINDS, metadata.data(), metadata.size(),
                                  &metadata_size, &info));
  expect(info.step == expected, "restored step " + std::to_string(expected) + ", got " + std::to_string(info.step));
  expect(std::string(metadata.data(), metadata_size) == metadata_of(expected, 0),
         "the checkpoint's metadata is rank 0's");
  const auto report = not_restored(job.engine.get(), info);
  for (auto& s : tensors) {
    if (!s.sliced && rank >= written_by) {
      // No rank of the writing job had this rank's number.
      expect(report.size() == 1 && report[0] == s.name, "rank-local '" + s.name + "' reported as not restored");
      expect(s.bytes == std::vector<uint8_t>(s.bytes.size(), 0xA5), "rank-local '" + s.name + "' left as it was");
      continue;
    }
    const uint64_t bad = s.wrong(expected);
    expect(bad == 0, "'" + s.name + "': " + std::to_string(bad) + " of " + std::to_string(s.count()) +
                         " elements differ from the global tensor");
  }
  if (rank < written_by) expect(report.empty(), "every tensor restored");
}

void disagree(const std::string& dir, int rank, int size) {
  Job job(dir, true);
  auto tensors = job_tensors(rank, size);
  register_all(job.engine.get(), tensors, true);
  const uint64_t step = rank == size - 1 ? 301 : 300;
  const std::string no_metadata;
  const auto args = save_args(step, no_metadata);
  frugal_ckpt_save_result result{};
  result.struct_size = sizeof(result);
  const auto refused = outcome(frugal_ckpt_save(job.engine.get(), &args, &result));
  expect(refused.code == FRUGAL_ERR_INVALID_ARGUMENT, "a save at different steps is refused on every rank");
  expect(refused.message.find("every rank must save the same kind at the same step") != std::string::npos,
         "the refusal says why: " + refused.message);
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_latest(job.engine.get(), FRUGAL_CKPT_ALL_KINDS, &info));
  expect(info.step == 200, "the newest checkpoint is still step 200");
}

// Rank 0 flips one byte of rank 1's first shard of the newest checkpoint;
// then every rank must restore the older one, whichever rank reads the
// damaged block.
void corrupt_then_restore(const std::string& dir, int rank, int size) {
  if (rank == 0) {
    const std::string shard = dir + "/full-000000000200-00000002/r00001-shard-00000";
    std::FILE* f = std::fopen(shard.c_str(), "r+b");
    expect(f != nullptr, "open " + shard);
    if (f != nullptr) {
      std::fseek(f, 5, SEEK_SET);
      const int c = std::fgetc(f);
      std::fseek(f, 5, SEEK_SET);
      std::fputc(c ^ 0x10, f);
      std::fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  restore(dir, rank, size, true, 4, 100);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: sharded_ranks save|restore|plain|disagree DIR WRITTEN_BY\n");
    return 2;
  }
  const std::string mode = argv[1];
  const std::string dir = argv[2];
  const int written_by = std::atoi(argv[3]);
  try {
    if (mode == "plain") {
      restore(dir, 0, 1, false, written_by);
    } else {
      int provided = 0;
      MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
      int size = 1;
      MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      if (mode == "save")
        save(dir, g_rank, size);
      else if (mode == "restore")
        restore(dir, g_rank, size, true, written_by);
      else if (mode == "disagree")
        disagree(dir, g_rank, size);
      else if (mode == "corrupt")
        corrupt_then_restore(dir, g_rank, size);
      else
        expect(false, "unknown mode " + mode);
      MPI_Finalize();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", g_rank, e.what());
    return 1;
  }
  if (g_failures == 0) std::printf("rank %d: %s passed\n", g_rank, mode.c_str());
  return g_failures == 0 ? 0 : 1;
}
