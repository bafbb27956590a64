// A job of several ranks with sharded tensors, for the programs that run
// under mpirun (sharded_ranks.cpp, crash_ranks.cpp). They are not Catch2
// tests, so this header carries the few helpers they share, on libfrugal
// and the SDK alone.
//
// Every tensor's element i at step s holds value(key, i, s), which any
// process can compute, so a restore is checked element by element against
// the global tensor without trusting anything the engine says. The split of
// each global tensor depends on the world size, so a restore at M != N
// ranks reads chunk boundaries that fall inside its slices.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "frugal/sdk/host.hpp"

namespace frugal::test::sharded {

inline std::string builtin_path(const std::string& name) {
  return std::string(FRUGAL_BUILTIN_PLUGIN_DIR) + "/" + name + ".so";
}

struct Outcome {
  int32_t code;
  std::string message;
};
inline Outcome outcome(frugal_error* error) {
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

// The names frugal_ckpt_restore_report gives for the restore `info` describes.
inline std::vector<std::string> not_restored(frugal_ckpt_engine* engine, const frugal_ckpt_info& info) {
  std::vector<std::string> names;
  char name[FRUGAL_CKPT_TENSOR_NAME_CAPACITY];
  for (uint32_t i = 0; i < info.not_restored_count; ++i) {
    host::check(frugal_ckpt_restore_report(engine, i, name, sizeof(name)));
    names.emplace_back(name);
  }
  return names;
}

// A deterministic value per tensor, element and step, as raw bits.
inline uint64_t value(const std::string& key, uint64_t element, uint64_t step) {
  uint64_t x = step * 0x9E3779B97F4A7C15ULL + element;
  for (const char c : key) x = (x ^ static_cast<uint8_t>(c)) * 0x100000001B3ULL;
  x ^= x >> 29;
  return x * 0xBF58476D1CE4E5B9ULL;
}

// [begin, end) of part p of n over `extent`, the first extent % n parts one longer.
inline std::pair<int64_t, int64_t> part_of(int64_t extent, int p, int n) {
  const int64_t base = extent / n;
  const int64_t extra = extent % n;
  const int64_t begin = p * base + std::min<int64_t>(p, extra);
  return {begin, begin + base + (p < extra ? 1 : 0)};
}

// One registered tensor: its global shape, this rank's box, its bytes.
struct Slice {
  std::string name;
  int rank = 0;  // the holder's rank (a rank-local tensor's values depend on it)
  int32_t dtype = 0;
  size_t element = 0;  // bytes
  std::vector<int64_t> global, offsets, shape;
  bool replicated = false;
  bool sliced = true;  // false: rank-local (frugal_ckpt_register)
  uint32_t kinds = 0;  // registered for (0: every kind)
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
  std::string key() const { return sliced ? name : name + "@" + std::to_string(rank); }
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

// A tensor of `global` shape that rank `rank` holds whole (its bytes and
// view are set by with_view).
inline Slice whole_slice(std::string name, int rank, int32_t dtype, size_t element, std::vector<int64_t> global) {
  Slice s;
  s.name = std::move(name);
  s.rank = rank;
  s.dtype = dtype;
  s.element = element;
  s.offsets.assign(global.size(), 0);
  s.shape = global;
  s.global = std::move(global);
  return s;
}

// Rank `rank`'s part of `global` split along `dim` over `size` ranks.
inline Slice split_slice(std::string name, int rank, int size, int32_t dtype, size_t element,
                         std::vector<int64_t> global, size_t dim) {
  Slice s = whole_slice(std::move(name), rank, dtype, element, std::move(global));
  const auto [begin, end] = part_of(s.global[dim], rank, size);
  s.offsets[dim] = begin;
  s.shape[dim] = end - begin;
  return s;
}

// Zeroed bytes and the view on them.
inline Slice with_view(Slice s) {
  s.bytes.assign(s.count() * s.element, 0);
  s.view.struct_size = sizeof(frugal_tensor);
  s.view.data = s.bytes.data();
  s.view.dtype = s.dtype;
  s.view.ndim = static_cast<int32_t>(s.shape.size());
  s.view.shape = s.shape.data();
  s.view.device = {FRUGAL_DEVICE_CPU, 0};
  return s;
}

// The job's tensors as rank `rank` of `size` holds them: splits along dim
// 0 and dim 1 (uneven), one with fewer rows than some jobs have ranks, a
// replicated tensor and a rank-local one; `big_rows` rows of 256 floats
// more, split along dim 0, when not 0 (a save that takes a while).
inline std::vector<Slice> job_tensors(int rank, int size, int64_t big_rows = 0) {
  std::vector<Slice> out;
  out.push_back(split_slice("layer0/w", rank, size, FRUGAL_DTYPE_FLOAT32, 4, {13, 7}, 0));   // rows, uneven
  out.push_back(split_slice("layer0/v", rank, size, FRUGAL_DTYPE_BFLOAT16, 2, {5, 11}, 1));  // columns, uneven
  out.push_back(
      split_slice("emb", rank, size, FRUGAL_DTYPE_INT64, 8, {9, 3, 4}, 0));  // fewer rows than some jobs' ranks
  if (big_rows > 0) out.push_back(split_slice("big", rank, size, FRUGAL_DTYPE_FLOAT32, 4, {big_rows, 256}, 0));
  Slice bias = whole_slice("bias", rank, FRUGAL_DTYPE_FLOAT32, 4, {17});
  bias.replicated = true;
  out.push_back(std::move(bias));
  Slice own = whole_slice("rng", rank, FRUGAL_DTYPE_INT64, 8, {4});
  own.sliced = false;
  out.push_back(std::move(own));
  for (auto& s : out) s = with_view(std::move(s));
  return out;
}

// Registers every tensor: slices as slices (with_slices), otherwise whole.
inline void register_all(frugal_ckpt_engine* engine, std::vector<Slice>& tensors, bool with_slices) {
  for (auto& s : tensors) {
    if (!with_slices || !s.sliced) {
      host::check(frugal_ckpt_register(engine, s.name.c_str(), &s.view, s.kinds));
      continue;
    }
    frugal_ckpt_slice slice{};
    slice.struct_size = sizeof(slice);
    slice.ndim = s.view.ndim;
    slice.replicated = s.replicated ? 1 : 0;
    slice.global_shape = s.global.data();
    slice.offsets = s.offsets.data();
    host::check(frugal_ckpt_register_slice(engine, s.name.c_str(), &s.view, &slice, s.kinds));
  }
}

// The host metadata rank `rank` saves at `step`: the odd ranks their own,
// the even ranks rank 0's bytes (which the manifest stores once).
inline std::string metadata_of(uint64_t step, int rank) {
  return "step " + std::to_string(step) + (rank % 2 == 1 ? " rank " + std::to_string(rank) : std::string());
}

// What a restore on `rank` of `size` ranks gets of a checkpoint a job of
// `written_by` ranks saved at `step`: its own rank's metadata when the
// sizes match, otherwise rank 0's (frugal_ckpt_restore).
inline std::string restored_metadata_of(uint64_t step, int rank, int size, uint32_t written_by) {
  return metadata_of(step, written_by == static_cast<uint32_t>(size) ? rank : 0);
}

// A store_fs store on `dir` and an engine on it, with the job's comm_mpi
// communicator (with_comm; MPI must be initialised) or alone.
struct Job {
  host::ContextPtr context = host::make_context();
  std::unique_ptr<frugal_store, StoreDeleter> store;
  host::CommPtr comm;
  std::unique_ptr<frugal_ckpt_engine, EngineDeleter> engine;
  Job(const std::string& dir, bool with_comm, int64_t shard_bytes = 4096, int64_t comm_timeout_ms = 60000) {
    host::check(frugal_context_load_plugin(context.get(), builtin_path("store_fs").c_str()));
    auto store_options = host::make_options();
    host::check(frugal_options_set_string(store_options.get(), "root", dir.c_str()));
    frugal_store* s = nullptr;
    host::check(frugal_store_create(context.get(), "fs", store_options.get(), &s));
    store.reset(s);
    auto options = host::make_options();
    host::check(frugal_options_set_int(options.get(), "shard_bytes", shard_bytes));
    if (with_comm) {
      host::check(frugal_context_load_plugin(context.get(), builtin_path("comm_mpi").c_str()));
      comm = host::make_comm(context.get(), "mpi", nullptr);
      host::check(frugal_comm_set_timeout(comm.get(), comm_timeout_ms));
      host::check(frugal_options_set_comm(options.get(), "comm", comm.get()));
    }
    frugal_ckpt_engine* e = nullptr;
    host::check(frugal_ckpt_engine_create(store.get(), options.get(), &e));
    engine.reset(e);
  }
};

}  // namespace frugal::test::sharded
