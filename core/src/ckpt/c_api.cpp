// The checkpoint engine's C entry points: argument checks, struct_size
// handling and the catch-all guard around frugal::ckpt::Engine.
#include <chrono>
#include <cstring>
#include <memory>
#include <set>
#include <utility>

#include "ckpt/c_handle.hpp"
#include "sized_structs.hpp"

namespace {

using frugal::guard;
using frugal::require_non_null;
using frugal::ckpt::engine_of;

constexpr size_t kSaveArgsMinSize = offsetof(frugal_ckpt_save_args, metadata_size) + sizeof(size_t);

frugal_ckpt_save_args read_args(const frugal_ckpt_save_args* args, const char* function) {
  require_non_null(args, function, "args");
  if (args->struct_size < kSaveArgsMinSize)
    frugal::fail(FRUGAL_ERR_ABI_MISMATCH, "{}: args->struct_size is {}; at least {} are required", function,
                 args->struct_size, kSaveArgsMinSize);
  return frugal::read_sized(args);
}

void copy_name(char (&dst)[FRUGAL_CKPT_NAME_CAPACITY], const std::string& name) {
  std::snprintf(dst, sizeof(dst), "%s", name.c_str());
}

frugal_ckpt_info to_info(const frugal::ckpt::Found& found) {
  frugal_ckpt_info info{};
  copy_name(info.name, found.id.name);
  info.kind = found.id.kind;
  info.status = found.status;
  info.step = found.id.step;
  info.sequence = found.id.sequence;
  if (found.manifest_read) {
    info.created_unix_ns = found.manifest.created_unix_ns;
    info.bytes = found.manifest.shard_bytes() + found.manifest.metadata_bytes();
    // A sharded tensor once, whatever its chunks; a rank-local one once per rank.
    std::set<std::pair<std::string, int64_t>> tensors;
    for (const auto& t : found.manifest.tensors)
      tensors.emplace(t.name, t.rank_local && t.shard < found.manifest.shards.size()
                                  ? static_cast<int64_t>(found.manifest.shards[t.shard].rank)
                                  : int64_t{-1});
    info.tensor_count = static_cast<uint32_t>(tensors.size());
    info.state_count = static_cast<uint32_t>(found.manifest.states.size());
    info.emergency = found.manifest.emergency ? 1 : 0;
    info.world_size = std::max<uint32_t>(found.manifest.world_size, 1);  // 0 in formats 1 and 2: one process
  }
  std::snprintf(info.reason, sizeof(info.reason), "%s", found.reason.c_str());
  return info;
}

void write_info(frugal_ckpt_info* out, const frugal::ckpt::Found& found, const char* function) {
  if (out != nullptr) frugal::write_sized(out, to_info(found), function);
}

}  // namespace

extern "C" {

FRUGAL_API frugal_error* frugal_ckpt_engine_create(frugal_store* store, const frugal_options* options,
                                                   frugal_ckpt_engine** out) {
  return guard("frugal_ckpt_engine_create", [&] {
    require_non_null(store, "frugal_ckpt_engine_create", "store");
    require_non_null(out, "frugal_ckpt_engine_create", "out");
    auto engine = std::make_unique<frugal_ckpt_engine>();
    engine->impl = std::make_unique<frugal::ckpt::Engine>(store->impl, options);
    *out = engine.release();
  });
}

FRUGAL_API void frugal_ckpt_engine_destroy(frugal_ckpt_engine* engine) { delete engine; }

FRUGAL_API frugal_error* frugal_ckpt_register(frugal_ckpt_engine* engine, const char* name, const frugal_tensor* view,
                                              uint32_t kinds) {
  return guard("frugal_ckpt_register", [&] {
    require_non_null(name, "frugal_ckpt_register", "name");
    require_non_null(view, "frugal_ckpt_register", "view");
    engine_of(engine, "frugal_ckpt_register").register_tensor(name, frugal::read_sized(view), kinds);
  });
}

FRUGAL_API frugal_error* frugal_ckpt_register_slice(frugal_ckpt_engine* engine, const char* name,
                                                    const frugal_tensor* view, const frugal_ckpt_slice* slice,
                                                    uint32_t kinds) {
  return guard("frugal_ckpt_register_slice", [&] {
    require_non_null(name, "frugal_ckpt_register_slice", "name");
    require_non_null(view, "frugal_ckpt_register_slice", "view");
    require_non_null(slice, "frugal_ckpt_register_slice", "slice");
    frugal::require_size(slice, FRUGAL_CKPT_SLICE_MIN_SIZE, "frugal_ckpt_register_slice: slice");
    engine_of(engine, "frugal_ckpt_register_slice")
        .register_slice(name, frugal::read_sized(view), frugal::read_sized(slice), kinds);
  });
}

FRUGAL_API frugal_error* frugal_ckpt_unregister(frugal_ckpt_engine* engine, const char* name) {
  return guard("frugal_ckpt_unregister", [&] {
    require_non_null(name, "frugal_ckpt_unregister", "name");
    engine_of(engine, "frugal_ckpt_unregister").unregister(name);
  });
}

FRUGAL_API frugal_error* frugal_ckpt_save(frugal_ckpt_engine* engine, const frugal_ckpt_save_args* args,
                                          frugal_ckpt_save_result* result) {
  return guard("frugal_ckpt_save", [&] {
    auto& impl = engine_of(engine, "frugal_ckpt_save");
    const auto outcome = impl.save(read_args(args, "frugal_ckpt_save"), false);
    if (result == nullptr) return;
    frugal_ckpt_save_result full{};
    copy_name(full.name, outcome.name);
    full.skipped = outcome.skipped ? 1 : 0;
    full.bytes = outcome.bytes;
    full.wait_seconds = outcome.wait_seconds;
    full.snapshot_seconds = outcome.snapshot_seconds;
    frugal::write_sized(result, full, "frugal_ckpt_save");
  });
}

FRUGAL_API frugal_error* frugal_ckpt_wait(frugal_ckpt_engine* engine, frugal_ckpt_persist_result* result) {
  return guard("frugal_ckpt_wait", [&] {
    const auto outcome = engine_of(engine, "frugal_ckpt_wait").wait();
    if (result == nullptr) return;
    frugal_ckpt_persist_result full{};
    copy_name(full.name, outcome.name);
    full.bytes = outcome.bytes;
    full.persist_seconds = outcome.persist_seconds;
    frugal::write_sized(result, full, "frugal_ckpt_wait");
  });
}

FRUGAL_API frugal_error* frugal_ckpt_list(frugal_ckpt_engine* engine, uint32_t flags, frugal_ckpt_list_fn fn,
                                          void* user_data) {
  return guard("frugal_ckpt_list", [&] {
    require_non_null(reinterpret_cast<const void*>(fn), "frugal_ckpt_list", "fn");
    for (const auto& found :
         engine_of(engine, "frugal_ckpt_list").list((flags & FRUGAL_CKPT_LIST_VERIFY_SHARDS) != 0)) {
      frugal_ckpt_info info = to_info(found);
      info.struct_size = sizeof(info);
      if (fn(user_data, &info) != 0) break;
    }
  });
}

FRUGAL_API frugal_error* frugal_ckpt_verify(frugal_ckpt_engine* engine, const char* name, frugal_ckpt_info* info) {
  return guard("frugal_ckpt_verify", [&] {
    require_non_null(name, "frugal_ckpt_verify", "name");
    require_non_null(info, "frugal_ckpt_verify", "info");
    write_info(info, engine_of(engine, "frugal_ckpt_verify").verify(name), "frugal_ckpt_verify");
  });
}

FRUGAL_API frugal_error* frugal_ckpt_latest(frugal_ckpt_engine* engine, uint32_t kinds, frugal_ckpt_info* info) {
  return guard("frugal_ckpt_latest", [&] {
    require_non_null(info, "frugal_ckpt_latest", "info");
    write_info(info, engine_of(engine, "frugal_ckpt_latest").latest(kinds), "frugal_ckpt_latest");
  });
}

FRUGAL_API frugal_error* frugal_ckpt_inspect_json(frugal_ckpt_engine* engine, const char* name, char** json) {
  return guard("frugal_ckpt_inspect_json", [&] {
    require_non_null(name, "frugal_ckpt_inspect_json", "name");
    require_non_null(json, "frugal_ckpt_inspect_json", "json");
    const std::string text = engine_of(engine, "frugal_ckpt_inspect_json").inspect_json(name);
    auto* copy = static_cast<char*>(std::malloc(text.size() + 1));
    if (copy == nullptr) frugal::fail(FRUGAL_ERR_OUT_OF_MEMORY, "frugal_ckpt_inspect_json: out of memory");
    std::memcpy(copy, text.c_str(), text.size() + 1);
    *json = copy;
  });
}

FRUGAL_API void frugal_string_free(char* text) { std::free(text); }

FRUGAL_API frugal_error* frugal_ckpt_restore(frugal_ckpt_engine* engine, const char* name, uint32_t kinds,
                                             void* metadata, size_t capacity, size_t* metadata_size,
                                             frugal_ckpt_info* info) {
  return guard("frugal_ckpt_restore", [&] {
    // Out-params are written only once nothing can fail any more (ABI rule
    // 5); the one exception is the size that OUT_OF_RANGE reports.
    uint64_t size = 0;
    try {
      const auto outcome = engine_of(engine, "frugal_ckpt_restore").restore(name, kinds, metadata, capacity, &size);
      if (info != nullptr) {
        frugal_ckpt_info full = to_info(outcome.found);
        copy_name(full.full_source, outcome.full_source);
        full.not_restored_count = static_cast<uint32_t>(outcome.not_restored.size());
        frugal::write_sized(info, full,
                            "frugal_ckpt_restore");  // full_source and not_restored_count only within struct_size
      }
    } catch (const frugal::Error& e) {
      if (e.code() == FRUGAL_ERR_OUT_OF_RANGE && metadata_size != nullptr) *metadata_size = size;
      throw;
    }
    if (metadata_size != nullptr) *metadata_size = size;
  });
}

FRUGAL_API frugal_error* frugal_ckpt_restore_report(frugal_ckpt_engine* engine, uint32_t index, char* name,
                                                    size_t capacity) {
  return guard("frugal_ckpt_restore_report", [&] {
    require_non_null(name, "frugal_ckpt_restore_report", "name");
    const auto report = engine_of(engine, "frugal_ckpt_restore_report").restore_report();
    if (index >= report.size())
      frugal::fail(FRUGAL_ERR_OUT_OF_RANGE, "frugal_ckpt_restore_report: index {} is past the {} tensors not restored",
                   index, report.size());
    const std::string& tensor = report[index];
    if (tensor.size() + 1 > capacity)
      frugal::fail(FRUGAL_ERR_OUT_OF_RANGE,
                   "frugal_ckpt_restore_report: tensor name '{}' needs {} bytes; capacity is {}", tensor,
                   tensor.size() + 1, capacity);
    std::memcpy(name, tensor.c_str(), tensor.size() + 1);
  });
}

FRUGAL_API frugal_error* frugal_ckpt_restored_metadata(frugal_ckpt_engine* engine, uint32_t rank, void* metadata,
                                                       size_t capacity, size_t* metadata_size) {
  return guard("frugal_ckpt_restored_metadata", [&] {
    require_non_null(metadata_size, "frugal_ckpt_restored_metadata", "metadata_size");
    if (capacity > 0 && metadata == nullptr)
      frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "frugal_ckpt_restored_metadata: metadata is NULL but capacity is {}",
                   capacity);
    const auto bytes = engine_of(engine, "frugal_ckpt_restored_metadata").restored_metadata(rank);
    *metadata_size = bytes.size();  // also with OUT_OF_RANGE: the caller needs it to retry
    if (bytes.size() > capacity)
      frugal::fail(FRUGAL_ERR_OUT_OF_RANGE,
                   "frugal_ckpt_restored_metadata: rank {} saved {} metadata bytes; the buffer holds {}", rank,
                   bytes.size(), capacity);
    if (!bytes.empty()) std::memcpy(metadata, bytes.data(), bytes.size());
  });
}

FRUGAL_API frugal_error* frugal_ckpt_gc(frugal_ckpt_engine* engine, uint32_t* removed) {
  return guard("frugal_ckpt_gc", [&] {
    const uint32_t count = engine_of(engine, "frugal_ckpt_gc").gc();
    if (removed != nullptr) *removed = count;
  });
}

FRUGAL_API frugal_error* frugal_ckpt_preemption_agree(frugal_ckpt_engine* engine, int32_t* pending) {
  return guard("frugal_ckpt_preemption_agree", [&] {
    require_non_null(pending, "frugal_ckpt_preemption_agree", "pending");
    *pending = engine_of(engine, "frugal_ckpt_preemption_agree").agree_on_preemption() ? 1 : 0;
  });
}

FRUGAL_API frugal_error* frugal_ckpt_emergency_save(frugal_ckpt_engine* engine, const frugal_ckpt_save_args* args,
                                                    double deadline_seconds, frugal_ckpt_emergency_result* result) {
  return guard("frugal_ckpt_emergency_save", [&] {
    require_non_null(result, "frugal_ckpt_emergency_save", "result");
    if (!(deadline_seconds > 0.0))
      frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "frugal_ckpt_emergency_save: deadline_seconds must be > 0, got {}",
                   deadline_seconds);
    auto& impl = engine_of(engine, "frugal_ckpt_emergency_save");
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(deadline_seconds));
    frugal_ckpt_emergency_result full{};
    try {
      frugal_ckpt_save_args emergency = read_args(args, "frugal_ckpt_emergency_save");
      emergency.flags = 0;  // never skipped, never an unbounded wait: the deadline rules
      const auto outcome = impl.save(emergency, true, deadline);
      copy_name(full.name, outcome.name);
      const auto persisted = impl.wait_for(outcome.name, deadline);
      // A persist that failed before the deadline (a full disk, or a newer
      // job that claimed the prefix) is returned, not just counted.
      if (persisted && persisted->error) throw *persisted->error;
      full.committed = persisted ? 1 : 0;
    } catch (const frugal::Error& e) {
      if (e.code() != FRUGAL_ERR_DEADLINE_EXCEEDED) throw;
      full.committed = 0;  // the previous persist ate the whole notice window
    }
    full.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    frugal::write_sized(result, full, "frugal_ckpt_emergency_save");
  });
}

}  // extern "C"
