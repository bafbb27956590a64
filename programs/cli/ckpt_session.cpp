#include "ckpt_session.hpp"

#include <sys/stat.h>

#include <fmt/format.h>

#include <ctime>

namespace frugal::cli {

CkptSession open_session(const std::string& dir, const EngineSettings& settings) {
  CkptSession session;
  session.context = host::make_context();
  host::check(frugal_context_discover_plugins(session.context.get(), 0, nullptr));

  auto store_options = host::make_options();
  host::check(frugal_options_set_string(store_options.get(), "root", dir.c_str()));
  frugal_store* store = nullptr;
  host::check(frugal_store_create(session.context.get(), "fs", store_options.get(), &store));
  session.store.reset(store);

  auto engine_options = host::make_options();
  if (!settings.prefix.empty())
    host::check(frugal_options_set_string(engine_options.get(), "prefix", settings.prefix.c_str()));
  if (settings.keep_heartbeats)
    host::check(frugal_options_set_int(engine_options.get(), "keep_heartbeats", *settings.keep_heartbeats));
  if (settings.keep_full) host::check(frugal_options_set_int(engine_options.get(), "keep_full", *settings.keep_full));
  if (settings.shard_bytes)
    host::check(frugal_options_set_int(engine_options.get(), "shard_bytes", *settings.shard_bytes));
  if (!settings.restore.empty())
    host::check(frugal_options_set_string(engine_options.get(), "restore", settings.restore.c_str()));
  if (!settings.comm_backend.empty()) {
    session.comm = host::make_comm(session.context.get(), settings.comm_backend.c_str(), nullptr);
    host::check(frugal_options_set_comm(engine_options.get(), "comm", session.comm.get()));
  }
  frugal_ckpt_engine* engine = nullptr;
  host::check(frugal_ckpt_engine_create(session.store.get(), engine_options.get(), &engine));
  session.engine.reset(engine);
  return session;
}

bool is_directory(const std::string& dir) {
  struct stat st {};
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string kind_name(int32_t kind) {
  switch (kind) {
    case FRUGAL_CKPT_HEARTBEAT: return "heartbeat";
    case FRUGAL_CKPT_FULL: return "full";
    default: return fmt::format("kind {}", kind);
  }
}

std::string status_name(int32_t status) {
  switch (status) {
    case FRUGAL_CKPT_VALID: return "valid";
    case FRUGAL_CKPT_INCOMPLETE: return "incomplete";
    case FRUGAL_CKPT_CORRUPT: return "corrupt";
    case FRUGAL_CKPT_NEWER_FORMAT: return "newer-format";
    case FRUGAL_CKPT_UNREADABLE: return "unreadable";
    default: return fmt::format("status {}", status);
  }
}

std::string utc_time(int64_t unix_ns) {
  if (unix_ns == 0) return "";
  const std::time_t seconds = static_cast<std::time_t>(unix_ns / 1000000000);
  std::tm tm{};
  if (::gmtime_r(&seconds, &tm) == nullptr) return "";
  char text[32];
  if (std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) return "";
  return text;
}

std::string human_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t unit = 0;
  while (bytes >= 1024.0 && unit + 1 < std::size(kUnits)) {
    bytes /= 1024.0;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.2f} {}", bytes, kUnits[unit]);
}

json::Json info_json(const frugal_ckpt_info& info, const std::string& status) {
  const std::string created = utc_time(info.created_unix_ns);
  const bool known_kind = info.kind == FRUGAL_CKPT_HEARTBEAT || info.kind == FRUGAL_CKPT_FULL;
  return {{"name", info.name},
          {"kind", known_kind ? json::Json(kind_name(info.kind)) : json::Json(nullptr)},
          {"step", info.step},
          {"sequence", info.sequence},
          {"status", status.empty() ? status_name(info.status) : status},
          {"bytes", info.bytes},
          {"tensors", info.tensor_count},
          {"states", info.state_count},
          {"emergency", info.emergency != 0},
          {"world_size", info.world_size},
          {"created_unix_ns", info.created_unix_ns},
          {"created", created.empty() ? json::Json(nullptr) : json::Json(created)},
          {"reason", info.reason}};
}

std::string human_seconds(double seconds) {
  if (seconds < 1e-3) return fmt::format("{:.1f} us", seconds * 1e6);
  if (seconds < 1.0) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.3f} s", seconds);
}

}  // namespace frugal::cli
