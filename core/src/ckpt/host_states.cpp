// Host state in checkpoints (frugal_ckpt_register_state): exporting each
// registered state into the snapshot with the size protocol of the kinds'
// export_state, and reading and importing it on restore. Both run on the
// caller's thread, under the engine's lock.
#include <fmt/format.h>

#include "ckpt/engine.hpp"
#include "plugin_call.hpp"

namespace frugal::ckpt {
namespace {

// A state may grow between the size query and the export (a router that
// meanwhile learnt a bias): the export is retried this many times in all.
constexpr int kExportAttempts = 3;
constexpr const char* kWho = "host callback";

void check_size(const std::string& name, uint64_t size) {
  if (size > kMaxStateBytes)
    fail(FRUGAL_ERR_OUT_OF_RANGE,
         "checkpoint state '{}' exports {} bytes, more than FRUGAL_CKPT_STATE_MAX_SIZE ({} bytes, 256 MiB)", name, size,
         kMaxStateBytes);
}

}  // namespace

std::vector<StateRecord> Engine::export_states_locked(int32_t kind) {
  state_snapshot_.clear();  // keeps its capacity: the next save of the same states allocates nothing
  std::vector<StateRecord> records;
  for (const auto& state : states_) {
    if ((state.kinds & static_cast<uint32_t>(kind)) == 0) continue;
    StateRecord record;
    record.name = state.name;
    record.kinds = state.kinds;
    record.size = export_state(state);
    records.push_back(std::move(record));
  }
  return records;
}

uint64_t Engine::export_state(const RegisteredState& state) {
  const std::string label = fmt::format("exporting checkpoint state '{}'", state.name);
  const auto& fns = state.fns;
  size_t size = 0;
  call_plugin(
      label, [&] { return fns.export_state(fns.user_data, nullptr, 0, &size); }, kWho);
  const size_t at = state_snapshot_.size();
  for (int attempt = 1;; ++attempt) {
    check_size(state.name, size);
    if (size == 0) return 0;  // nothing to copy: the query said it all
    state_snapshot_.resize(at + size);
    size_t written = size;
    try {
      call_plugin(
          label, [&] { return fns.export_state(fns.user_data, state_snapshot_.data() + at, size, &written); }, kWho);
    } catch (const Error& e) {
      // Grown since the query: ask again with the size it reported.
      if (e.code() != FRUGAL_ERR_OUT_OF_RANGE || written <= size || attempt == kExportAttempts) throw;
      size = written;
      continue;
    }
    if (written > size)
      fail(FRUGAL_ERR_INTERNAL, "{}: export_state reported {} bytes written into a buffer of {}", label, written, size);
    state_snapshot_.resize(at + written);
    return written;
  }
}

std::vector<uint64_t> Engine::read_state_shards(const Manifest& m, const std::vector<bool>& wanted,
                                                std::vector<uint8_t>& dst) const {
  uint64_t bytes = 0;
  for (size_t i = 0; i < m.shards.size(); ++i)
    if (wanted[i]) bytes += m.shards[i].size;
  dst.resize(static_cast<size_t>(bytes));
  return read_verified_shards(m, wanted, dst.data());
}

void Engine::import_state(const RegisteredState& state, const uint8_t* data, uint64_t size,
                          const std::string& checkpoint) {
  static const uint8_t kEmpty = 0;  // import_state never sees NULL, even for an empty state
  const auto& fns = state.fns;
  call_plugin(
      fmt::format("restoring checkpoint {}: importing state '{}' (the tensors are already written)", checkpoint,
                  state.name),
      [&] { return fns.import_state(fns.user_data, size > 0 ? data : &kEmpty, static_cast<size_t>(size)); }, kWho);
}

}  // namespace frugal::ckpt
