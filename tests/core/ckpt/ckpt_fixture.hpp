// A scratch store directory, a store_fs-backed engine and some registered
// state, shared by the checkpoint tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "frugal/sdk/host.hpp"

namespace frugal::test {

struct StorePtrDeleter {
  void operator()(frugal_store* s) const noexcept { frugal_store_destroy(s); }
};
struct EnginePtrDeleter {
  void operator()(frugal_ckpt_engine* e) const noexcept { frugal_ckpt_engine_destroy(e); }
};
using StorePtr = std::unique_ptr<frugal_store, StorePtrDeleter>;
using EnginePtr = std::unique_ptr<frugal_ckpt_engine, EnginePtrDeleter>;

// A temporary directory removed on destruction.
struct ScratchDir {
  std::filesystem::path path;
  ScratchDir();
  ~ScratchDir();
};

// Loads store_fs and opens it on `root` (extra options as name=value text).
StorePtr open_fs_store(frugal_context* context, const std::string& root,
                       const std::vector<std::pair<std::string, std::string>>& extra = {});

// Creates an engine with options given as name=value text.
EnginePtr make_engine(frugal_store* store, const std::vector<std::pair<std::string, std::string>>& options = {});

// A CPU float tensor the test owns, with a view to register.
struct HostTensor {
  std::vector<float> data;
  std::vector<int64_t> shape;
  frugal_tensor view{};
  explicit HostTensor(std::vector<int64_t> dims);
  void fill(uint32_t seed);  // deterministic pseudo-random values
};

// Save arguments for `kind` at `step` with `metadata` (which must outlive the call using them).
frugal_ckpt_save_args save_args(int32_t kind, uint64_t step, const std::string& metadata = "", uint32_t flags = 0);

// Saves with the given kind/step/metadata and waits for the persist; returns the name.
std::string save_and_wait(frugal_ckpt_engine* engine, int32_t kind, uint64_t step, const std::string& metadata = "");

// Every checkpoint as the engine lists it (newest first), with verification of shards.
std::vector<frugal_ckpt_info> list_all(frugal_ckpt_engine* engine, bool deep);

// The names frugal_ckpt_restore_report gives for the last restore (`info`
// its result), checking that the list ends where not_restored_count says.
std::vector<std::string> not_restored(frugal_ckpt_engine* engine, const frugal_ckpt_info& info);

}  // namespace frugal::test

// ---------------------------------------------------------------------------
// Deterministic training state for the crash-consistency harness. Shared by
// crash_child (which links only libfrugal, hence header-only) and the
// parent test that checks what each SIGKILL left behind.
// ---------------------------------------------------------------------------
#include <algorithm>
#include <cstring>
#include <optional>

namespace frugal::test::crash {

// splitmix64: a tiny, well-mixed stream, so state(step) is a pure function
// of step that any process can recompute.
inline uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Registered state of mixed dtypes (~2.3 MiB). With shard_bytes = 1 MiB
// (kShardBytes) a full checkpoint spans three shards, so a kill can land
// between shards; "optim/moments" is full-only, so heartbeats leave it out.
// With register_states, two host states (frugal_ckpt_register_state) of the
// same step travel too, in a shard after the tensors': "loop/state" in every
// kind, "optim/schedule_state" in full checkpoints only.
class State {
 public:
  static constexpr int64_t kShardBytes = int64_t{1} << 20;
  static constexpr uint64_t kNoStep = ~uint64_t{0};  // a host state's step after poison()

  // Host state whose bytes are a pure function of (step, index), with the
  // step in its first 8 bytes: an import takes only bytes some step
  // exported, so `step` says exactly what was restored.
  struct HostState {
    const char* name;
    uint32_t kinds;
    size_t size;
    uint64_t index;
    uint64_t step = kNoStep;
    uint64_t imports = 0;

    std::vector<uint8_t> bytes_of(uint64_t of_step) const {
      std::vector<uint8_t> out(size);
      uint64_t seed = of_step * 0x9e3779b97f4a7c15ull + index;
      for (size_t i = 0; i < size; i += 8) {
        const uint64_t word = i == 0 ? of_step : splitmix64(seed);
        std::memcpy(out.data() + i, &word, std::min<size_t>(8, size - i));
      }
      return out;
    }
    frugal_ckpt_state_fns fns() {
      frugal_ckpt_state_fns f{};
      f.struct_size = sizeof(f);
      f.user_data = this;
      f.export_state = [](void* user, void* buffer, size_t capacity, size_t* out_size) -> frugal_error* {
        const auto& s = *static_cast<const HostState*>(user);
        *out_size = s.size;
        if (buffer == nullptr) return nullptr;
        if (capacity < s.size) return frugal_error_create(FRUGAL_ERR_OUT_OF_RANGE, "host state: buffer too small");
        const auto bytes = s.bytes_of(s.step);
        std::memcpy(buffer, bytes.data(), bytes.size());
        return nullptr;
      };
      f.import_state = [](void* user, const void* data, size_t data_size) -> frugal_error* {
        auto& s = *static_cast<HostState*>(user);
        uint64_t of_step = 0;
        if (data_size == s.size && s.size >= 8) std::memcpy(&of_step, data, 8);
        if (data_size != s.size || std::memcmp(data, s.bytes_of(of_step).data(), s.size) != 0)
          return frugal_error_create(FRUGAL_ERR_DATA_CORRUPTED,
                                     (std::string(s.name) + ": bytes no step exported").c_str());
        s.step = of_step;
        ++s.imports;
        return nullptr;
      };
      return f;
    }
  };

  struct Tensor {
    const char* name;
    int32_t dtype;
    std::vector<int64_t> shape;
    uint32_t kinds;               // 0 = every kind
    std::vector<uint64_t> words;  // storage, 8-byte aligned
    size_t bytes = 0;
    frugal_tensor view{};
  };

  State() {
    add("model/weights", FRUGAL_DTYPE_FLOAT32, {512, 512}, 0);
    add("optim/moments", FRUGAL_DTYPE_FLOAT32, {2, 512, 256}, FRUGAL_CKPT_FULL);
    add("data/cursor_table", FRUGAL_DTYPE_UINT8, {3, 100003}, 0);  // odd size: no alignment luck
    add("rng/state", FRUGAL_DTYPE_INT64, {4}, 0);
    states_.push_back({"loop/state", 0, size_t{64} << 10, 1});
    states_.push_back({"optim/schedule_state", FRUGAL_CKPT_FULL, 4096 + 5, 2});  // odd size too
  }
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  std::vector<Tensor>& tensors() { return tensors_; }
  std::vector<HostState>& states() { return states_; }

  // Registers every tensor; returns the first error (caller owns it).
  frugal_error* register_all(frugal_ckpt_engine* engine) {
    for (auto& t : tensors_)
      if (frugal_error* e = frugal_ckpt_register(engine, t.name, &t.view, t.kinds)) return e;
    return nullptr;
  }

  // Registers the host states too; returns the first error (caller owns it).
  frugal_error* register_states(frugal_ckpt_engine* engine) {
    for (auto& s : states_) {
      const frugal_ckpt_state_fns fns = s.fns();
      if (frugal_error* e = frugal_ckpt_register_state(engine, s.name, &fns, s.kinds)) return e;
    }
    states_registered_ = true;
    return nullptr;
  }

  // The state of training step `step`, bit for bit.
  void fill(uint64_t step) {
    for (size_t i = 0; i < tensors_.size(); ++i) generate(step, i, tensors_[i].words.data());
    for (auto& s : states_) s.step = step;
  }

  // Overwrites everything with a pattern no step produces (to see what a
  // restore wrote and what it left alone).
  void poison() {
    for (auto& t : tensors_) std::memset(t.words.data(), 0xA5, t.bytes);
    for (auto& s : states_) s.step = kNoStep;
  }
  bool is_poisoned(const Tensor& t) const {
    const auto* p = reinterpret_cast<const unsigned char*>(t.words.data());
    for (size_t i = 0; i < t.bytes; ++i)
      if (p[i] != 0xA5) return false;
    return true;
  }

  // True when `t` (a Tensor or a HostState) is in checkpoints of `kind`.
  template <typename T>
  static bool in_kind(const T& t, int32_t kind) {
    return t.kinds == 0 || (t.kinds & static_cast<uint32_t>(kind)) != 0;
  }

  // "" when every tensor a checkpoint of `kind` holds equals fill(step) bit
  // for bit and every other tensor is still poisoned (restore must leave
  // absent tensors alone), except that with `full_step` the tensors a
  // heartbeat leaves out equal fill(*full_step) (the full checkpoint that
  // supplied them); otherwise what differs.
  std::string mismatch(uint64_t step, int32_t kind, bool expect_rest_poisoned,
                       std::optional<uint64_t> full_step = std::nullopt) const {
    std::vector<uint64_t> expected;
    for (size_t i = 0; i < tensors_.size(); ++i) {
      const Tensor& t = tensors_[i];
      uint64_t expected_step = step;
      if (!in_kind(t, kind)) {
        if (full_step) {
          expected_step = *full_step;
        } else {
          if (expect_rest_poisoned && !is_poisoned(t)) return std::string(t.name) + " was written by the restore";
          continue;
        }
      }
      expected.assign(t.words.size(), 0);
      generate(expected_step, i, expected.data());
      if (std::memcmp(expected.data(), t.words.data(), t.bytes) != 0)
        return std::string(t.name) + " differs from the state of step " + std::to_string(expected_step);
    }
    // Host states (when registered): the same rules, by the step their bytes belong to.
    for (const HostState& s : states_) {
      if (!states_registered_) break;
      uint64_t expected_step = step;
      if (!in_kind(s, kind)) {
        if (full_step) {
          expected_step = *full_step;
        } else {
          if (expect_rest_poisoned && s.step != kNoStep) return std::string(s.name) + " was imported by the restore";
          continue;
        }
      }
      if (s.step != expected_step)
        return std::string(s.name) + " holds the state of step " +
               (s.step == kNoStep ? std::string("none") : std::to_string(s.step)) + ", not of step " +
               std::to_string(expected_step);
    }
    return {};
  }

 private:
  void add(const char* name, int32_t dtype, std::vector<int64_t> shape, uint32_t kinds) {
    Tensor t;
    t.name = name;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.kinds = kinds;
    size_t count = 1;
    for (const int64_t d : t.shape) count *= static_cast<size_t>(d);
    t.bytes = count * element_size(dtype);
    t.words.assign((t.bytes + 7) / 8, 0);
    tensors_.push_back(std::move(t));
    Tensor& back = tensors_.back();
    back.view.struct_size = sizeof(back.view);
    back.view.data = back.words.data();
    back.view.dtype = back.dtype;
    back.view.ndim = static_cast<int32_t>(back.shape.size());
    back.view.device = {FRUGAL_DEVICE_CPU, 0};
    back.view.shape = back.shape.data();
  }

  static size_t element_size(int32_t dtype) {
    return dtype == FRUGAL_DTYPE_INT64 ? 8 : dtype == FRUGAL_DTYPE_FLOAT32 ? 4 : 1;
  }

  // Tensor `index` of step `step` into `out` (its byte size, 8-aligned).
  void generate(uint64_t step, size_t index, uint64_t* out) const {
    const Tensor& t = tensors_[index];
    uint64_t seed = step * 0x100000001b3ull + index;
    (void)splitmix64(seed);
    if (t.dtype == FRUGAL_DTYPE_FLOAT32) {
      // Real, finite floats in [-0.5, 0.5): the state a model would hold.
      auto* f = reinterpret_cast<float*>(out);
      for (size_t i = 0; i < t.bytes / 4; ++i) f[i] = static_cast<float>(splitmix64(seed) >> 40) * 0x1p-24f - 0.5f;
    } else {
      // Raw bits for integers (the trailing partial word is written whole;
      // storage is padded to 8 bytes and only t.bytes are ever compared).
      for (size_t i = 0; i < (t.bytes + 7) / 8; ++i) out[i] = splitmix64(seed);
    }
  }

  std::vector<Tensor> tensors_;
  std::vector<HostState> states_;
  bool states_registered_ = false;
};

// What crash_child saves at step s: kinds alternate and both ways of
// waiting are used, so kills land in every kind of persist.
struct StepPlan {
  int32_t kind;
  bool wait_flag;  // FRUGAL_CKPT_SAVE_WAIT, else async + frugal_ckpt_wait
};
inline StepPlan plan_for(uint64_t step) {
  switch (step % 4) {
    case 0: return {FRUGAL_CKPT_FULL, true};
    case 1: return {FRUGAL_CKPT_HEARTBEAT, false};
    case 2: return {FRUGAL_CKPT_FULL, false};
    default: return {FRUGAL_CKPT_HEARTBEAT, true};
  }
}

// The host metadata saved with step s: "step=<s>\n" and then 256 KiB of
// opaque bytes (data-loader cursor, RNG and scheduler state in a real job),
// so that the manifest, which carries them, takes long enough to write for
// kills to land inside its write too.
inline constexpr size_t kMetadataPayload = size_t{256} << 10;
inline constexpr size_t kMetadataCapacity = kMetadataPayload + 64;
inline std::string step_metadata(uint64_t step) {
  std::string text = "step=" + std::to_string(step) + "\n";
  uint64_t seed = ~step;
  for (size_t i = 0; i < kMetadataPayload; i += 8) {
    const uint64_t word = splitmix64(seed);
    text.append(reinterpret_cast<const char*>(&word), 8);
  }
  return text;
}

}  // namespace frugal::test::crash

namespace frugal::test {

// Restores `name` (NULL: the newest valid of `kinds`) into `state`, poisoned
// first, and checks (Catch2 CHECKs) that it now holds exactly the state and
// the metadata of the restored step. Returns what was restored.
frugal_ckpt_info restore_exact(frugal_ckpt_engine* engine, crash::State& state, const char* name,
                               uint32_t kinds = FRUGAL_CKPT_ALL_KINDS);

// Verifies checkpoint `name` (frugal_ckpt_verify, which must not fail).
frugal_ckpt_info verify_one(frugal_ckpt_engine* engine, const std::string& name);

// Files below `dir` (hidden ones included): their count and total size.
struct DiskUsage {
  uint64_t files = 0;
  uint64_t bytes = 0;
};
DiskUsage disk_usage(const std::filesystem::path& dir);

}  // namespace frugal::test
