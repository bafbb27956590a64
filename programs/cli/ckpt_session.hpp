// What every `frugal ckpt` subcommand shares: a checkpoint engine on the
// "fs" store of a directory, opened through the public C API only, and the
// text and JSON forms of a frugal_ckpt_info.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "frugal/sdk/host.hpp"
#include "json_text.hpp"

namespace frugal::cli {

struct StoreCloser {
  void operator()(frugal_store* s) const noexcept { frugal_store_destroy(s); }
};
struct EngineDestroyer {
  void operator()(frugal_ckpt_engine* e) const noexcept { frugal_ckpt_engine_destroy(e); }
};
using StorePtr = std::unique_ptr<frugal_store, StoreCloser>;
using EnginePtr = std::unique_ptr<frugal_ckpt_engine, EngineDestroyer>;

struct EngineSettings {
  std::string prefix;                      // engine option "prefix" ("" = none)
  std::optional<int64_t> keep_heartbeats;  // engine defaults when unset
  std::optional<int64_t> keep_full;
  std::optional<int64_t> shard_bytes;
  std::string restore;  // engine option "restore": "verified", "in_place" ("" = the engine's default)
  // A comm strategy ("mpi", ...): the engine then saves and restores with
  // the job's ranks (engine option "comm"); "" = one process.
  std::string comm_backend;
};

// Plugins discovered, the "fs" store open on a directory, an engine on it.
// Members are destroyed in reverse order: engine, store, context.
struct CkptSession {
  host::ContextPtr context;
  StorePtr store;
  host::CommPtr comm;  // with EngineSettings::comm_backend only
  EnginePtr engine;
};

// Opens `dir` (the "fs" store's root; created if absent, as the store
// does). With a comm backend, collective over the job's ranks.
CkptSession open_session(const std::string& dir, const EngineSettings& settings);

// True when `dir` exists and is a directory (read-only commands refuse to
// create a store root by looking at it).
bool is_directory(const std::string& dir);

// "heartbeat", "full", or "kind N".
std::string kind_name(int32_t kind);
// "valid", "incomplete", "corrupt", "newer-format", "unreadable", or "status N".
std::string status_name(int32_t status);
// "2026-11-30T12:00:00Z" (UTC, seconds), or "" for 0.
std::string utc_time(int64_t unix_ns);
// "1.00 GiB", "512 B", ...
std::string human_bytes(double bytes);

// "12.3 us", "4.56 ms", "1.234 s".
std::string human_seconds(double seconds);

// One checkpoint as a JSON object (keys: name, kind, step, sequence,
// status, bytes, tensors, emergency, created_unix_ns, created, reason;
// kind and created are null when unknown). `status` replaces the status
// name when not empty.
json::Json info_json(const frugal_ckpt_info& info, const std::string& status = "");

}  // namespace frugal::cli
