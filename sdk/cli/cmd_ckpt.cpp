// `frugal ckpt ...`: look at, verify and tidy the checkpoints a checkpoint
// engine wrote into a directory (the "fs" store), through the public C API
// only. Exit codes: 0 ok, 1 the command found a problem (a checkpoint that
// fails, no valid checkpoint, a store error), 2 bad usage.
#include <fmt/format.h>

#include <set>
#include <string>
#include <vector>

#include "ckpt_args.hpp"
#include "ckpt_session.hpp"
#include "commands.hpp"
#include "json_writer.hpp"

namespace frugal::cli {
namespace {

constexpr const char* kCkptUsage =
    "usage: frugal ckpt <subcommand> DIR [options]      (DIR: the \"fs\" store's root)\n"
    "\n"
    "subcommands:\n"
    "  ls DIR [--verify] [--json]         every checkpoint, newest first, with its status;\n"
    "                                     --verify also reads and checks every shard\n"
    "  latest DIR [--kind heartbeat|full] [--json]\n"
    "                                     the newest fully verified checkpoint (exit 1: none)\n"
    "  verify DIR [NAME...] [--json]      full verification of NAMEs, or of all (exit 1: any fails)\n"
    "  inspect DIR NAME                   the manifest as JSON\n"
    "  gc DIR [--keep-heartbeats N] [--keep-full M] [--json]\n"
    "                                     apply retention (engine defaults: 2 and 2); reads every\n"
    "                                     shard first and refuses while a checkpoint is damaged\n"
    "  bench DIR --size BYTES [--kind heartbeat|full] [--count N] [--json] [--keep]\n"
    "            [--keep-heartbeats N] [--keep-full M] [--shard-bytes B]\n"
    "                                     benchmark saves against memcpy and raw disk writes;\n"
    "                                     DIR is scratch space (BYTES: 1048576, 64M, 1G, ...);\n"
    "                                     --keep leaves the checkpoints (retention off unless\n"
    "                                     --keep-* are given) and may add to existing ones\n"
    "\n"
    "every subcommand accepts --prefix P: the engine's key prefix inside DIR\n";

std::vector<std::string> with_common(std::vector<std::string> flags) {
  flags.emplace_back("--prefix");
  return flags;
}

// DIR: the first positional.
std::string dir_arg(const ParsedArgs& parsed, const char* what) {
  if (parsed.positional.empty()) throw UsageError(fmt::format("{} needs DIR", what));
  return parsed.positional.front();
}

// Returns false (after printing why) when `dir` is not a directory: the
// commands that look at checkpoints never create a store root by accident.
bool check_dir(const std::string& sub, const std::string& dir) {
  if (is_directory(dir)) return true;
  fmt::print(stderr, "frugal ckpt {}: '{}' is not a directory\n", sub, dir);
  return false;
}

EngineSettings settings_from(const ParsedArgs& parsed) {
  EngineSettings settings;
  settings.prefix = parsed.value("--prefix").value_or("");
  if (const auto keep = parsed.value("--keep-heartbeats"))
    settings.keep_heartbeats = parse_int_flag("--keep-heartbeats", *keep, 1, 1000000);
  if (const auto keep = parsed.value("--keep-full")) settings.keep_full = parse_int_flag("--keep-full", *keep, 1, 1000000);
  return settings;
}

std::vector<frugal_ckpt_info> list_checkpoints(frugal_ckpt_engine* engine, bool deep) {
  std::vector<frugal_ckpt_info> out;
  auto collect = [](void* user_data, const frugal_ckpt_info* info) -> int32_t {
    static_cast<std::vector<frugal_ckpt_info>*>(user_data)->push_back(*info);
    return 0;
  };
  host::check(frugal_ckpt_list(engine, deep ? FRUGAL_CKPT_LIST_VERIFY_SHARDS : 0u, collect, &out));
  return out;
}

std::string header_json(const std::string& dir, const std::string& prefix) {
  return fmt::format("\"dir\": {}, \"prefix\": {}", json_string(dir), json_string(prefix));
}

void print_info_array(const std::vector<frugal_ckpt_info>& infos) {
  fmt::print("[");
  for (size_t i = 0; i < infos.size(); ++i) fmt::print("{}\n    {}", i == 0 ? "" : ",", info_json(infos[i]));
  fmt::print("{}]", infos.empty() ? "" : "\n  ");
}

void print_table(const std::vector<frugal_ckpt_info>& infos) {
  fmt::print("{:<26} {:<9} {:>12} {:>8} {:<12} {:>11} {:>7} {:<9} {:<20} {}\n", "NAME", "KIND", "STEP", "SEQ",
             "STATUS", "BYTES", "TENSORS", "EMERGENCY", "CREATED (UTC)", "REASON");
  for (const auto& info : infos) {
    const bool valid = info.status == FRUGAL_CKPT_VALID;
    const std::string created = utc_time(info.created_unix_ns);
    fmt::print("{:<26} {:<9} {:>12} {:>8} {:<12} {:>11} {:>7} {:<9} {:<20} {}\n", info.name, kind_name(info.kind),
               info.step, info.sequence, status_name(info.status), valid ? human_bytes(static_cast<double>(info.bytes)) : "-",
               valid ? fmt::format("{}", info.tensor_count) : "-", info.emergency != 0 ? "yes" : "no",
               created.empty() ? "-" : created, info.reason);
  }
}

void print_details(const frugal_ckpt_info& info) {
  const std::string created = utc_time(info.created_unix_ns);
  fmt::print("{}\n", info.name);
  fmt::print("  kind       {}\n  step       {}\n  sequence   {}\n  status     {}\n", kind_name(info.kind), info.step,
             info.sequence, status_name(info.status));
  fmt::print("  bytes      {} ({})\n  tensors    {}\n  emergency  {}\n  created    {}\n", info.bytes,
             human_bytes(static_cast<double>(info.bytes)), info.tensor_count, info.emergency != 0 ? "yes" : "no",
             created.empty() ? "-" : created);
  if (info.reason[0] != '\0') fmt::print("  reason     {}\n", info.reason);
}

int ckpt_ls(const std::vector<std::string>& args) {
  const auto parsed = parse_args(args, with_common({}), {"--json", "--verify"});
  const std::string dir = dir_arg(parsed, "ls");
  if (parsed.positional.size() > 1) throw UsageError(fmt::format("ls takes one DIR, got '{}' too", parsed.positional[1]));
  const auto settings = settings_from(parsed);
  if (!check_dir("ls", dir)) return kExitProblem;
  auto session = open_session(dir, settings);
  const bool deep = parsed.has("--verify");
  const auto infos = list_checkpoints(session.engine.get(), deep);
  if (parsed.has("--json")) {
    fmt::print("{{\n  {}, \"verified_shards\": {},\n  \"checkpoints\": ", header_json(dir, settings.prefix),
               deep ? "true" : "false");
    print_info_array(infos);
    fmt::print("\n}}\n");
  } else if (infos.empty()) {
    fmt::print("no checkpoints in {}{}\n", dir, settings.prefix.empty() ? "" : " under prefix '" + settings.prefix + "'");
  } else {
    print_table(infos);
  }
  return kExitOk;
}

int ckpt_latest(const std::vector<std::string>& args) {
  const auto parsed = parse_args(args, with_common({"--kind"}), {"--json"});
  const std::string dir = dir_arg(parsed, "latest");
  if (parsed.positional.size() > 1)
    throw UsageError(fmt::format("latest takes one DIR, got '{}' too", parsed.positional[1]));
  uint32_t kinds = FRUGAL_CKPT_ALL_KINDS;
  std::string kinds_text = "any";
  if (const auto kind = parsed.value("--kind")) {
    if (*kind == "heartbeat")
      kinds = FRUGAL_CKPT_HEARTBEAT;
    else if (*kind == "full")
      kinds = FRUGAL_CKPT_FULL;
    else
      throw UsageError(fmt::format("--kind must be heartbeat or full, got '{}'", *kind));
    kinds_text = *kind;
  }
  const auto settings = settings_from(parsed);
  if (!check_dir("latest", dir)) return kExitProblem;
  auto session = open_session(dir, settings);
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  frugal_error* error = frugal_ckpt_latest(session.engine.get(), kinds, &info);
  if (error != nullptr && frugal_error_code(error) == FRUGAL_ERR_NOT_FOUND) {
    const std::string reason = frugal_error_message(error);
    frugal_error_destroy(error);
    if (parsed.has("--json"))
      fmt::print("{{\n  {}, \"kind\": {},\n  \"checkpoint\": null,\n  \"reason\": {}\n}}\n",
                 header_json(dir, settings.prefix), json_string(kinds_text), json_string(reason));
    fmt::print(stderr, "frugal ckpt latest: {}: {}\n", dir, reason);
    return kExitProblem;
  }
  host::check(error);
  if (parsed.has("--json"))
    fmt::print("{{\n  {}, \"kind\": {},\n  \"checkpoint\": {}\n}}\n", header_json(dir, settings.prefix),
               json_string(kinds_text), info_json(info));
  else
    print_details(info);
  return kExitOk;
}

int ckpt_verify(const std::vector<std::string>& args) {
  const auto parsed = parse_args(args, with_common({}), {"--json"});
  const std::string dir = dir_arg(parsed, "verify");
  const auto settings = settings_from(parsed);
  if (!check_dir("verify", dir)) return kExitProblem;
  auto session = open_session(dir, settings);

  struct Row {
    frugal_ckpt_info info{};
    std::string status;  // status_name, or "not-found" / "error" for a name the engine refused
  };
  std::vector<Row> rows;
  if (parsed.positional.size() == 1) {
    for (const auto& info : list_checkpoints(session.engine.get(), true)) rows.push_back({info, status_name(info.status)});
  } else {
    for (size_t i = 1; i < parsed.positional.size(); ++i) {
      Row row;
      row.info.struct_size = sizeof(row.info);
      frugal_error* error = frugal_ckpt_verify(session.engine.get(), parsed.positional[i].c_str(), &row.info);
      if (error != nullptr) {
        const int32_t code = frugal_error_code(error);
        if (code != FRUGAL_ERR_NOT_FOUND && code != FRUGAL_ERR_INVALID_ARGUMENT) host::check(error);
        fmt::format_to_n(row.info.name, sizeof(row.info.name) - 1, "{}", parsed.positional[i]);
        fmt::format_to_n(row.info.reason, sizeof(row.info.reason) - 1, "{}", frugal_error_message(error));
        row.status = code == FRUGAL_ERR_NOT_FOUND ? "not-found" : "error";
        frugal_error_destroy(error);
      } else {
        row.status = status_name(row.info.status);
      }
      rows.push_back(row);
    }
  }

  std::vector<const Row*> failed;
  for (const auto& row : rows)
    if (row.status != "valid") failed.push_back(&row);
  if (parsed.has("--json")) {
    fmt::print("{{\n  {}, \"checked\": {}, \"failed\": {},\n  \"checkpoints\": [", header_json(dir, settings.prefix),
               rows.size(), failed.size());
    for (size_t i = 0; i < rows.size(); ++i)
      fmt::print("{}\n    {}", i == 0 ? "" : ",", info_json(rows[i].info, rows[i].status));
    fmt::print("{}]\n}}\n", rows.empty() ? "" : "\n  ");
  } else {
    if (rows.empty()) fmt::print("no checkpoints in {}\n", dir);
    for (const auto& row : rows)
      fmt::print("{:<26} {:<12} {}\n", row.info.name, row.status, row.info.reason);
    if (!rows.empty()) fmt::print("{} checked: {} valid, {} failed\n", rows.size(), rows.size() - failed.size(), failed.size());
  }
  if (failed.empty()) return kExitOk;
  std::string which;
  for (const Row* row : failed) which += fmt::format("\n  {} ({}): {}", row->info.name, row->status, row->info.reason);
  fmt::print(stderr, "frugal ckpt verify: {} of {} failed:{}\n", failed.size(), rows.size(), which);
  return kExitProblem;
}

int ckpt_inspect(const std::vector<std::string>& args) {
  const auto parsed = parse_args(args, with_common({}), {});
  if (parsed.positional.size() != 2) throw UsageError("inspect needs DIR and one checkpoint NAME");
  const std::string& dir = parsed.positional[0];
  const auto settings = settings_from(parsed);
  if (!check_dir("inspect", dir)) return kExitProblem;
  auto session = open_session(dir, settings);
  char* json = nullptr;
  host::check(frugal_ckpt_inspect_json(session.engine.get(), parsed.positional[1].c_str(), &json));
  const std::string text = json;
  frugal_string_free(json);
  fmt::print("{}{}", text, !text.empty() && text.back() == '\n' ? "" : "\n");
  return kExitOk;
}

int ckpt_gc(const std::vector<std::string>& args) {
  const auto parsed = parse_args(args, with_common({"--keep-heartbeats", "--keep-full"}), {"--json"});
  const std::string dir = dir_arg(parsed, "gc");
  if (parsed.positional.size() > 1) throw UsageError(fmt::format("gc takes one DIR, got '{}' too", parsed.positional[1]));
  const auto settings = settings_from(parsed);
  if (!check_dir("gc", dir)) return kExitProblem;
  auto session = open_session(dir, settings);
  // Retention judges checkpoints by their manifests only, so one whose
  // manifest is fine but whose shards are damaged counts as a kept valid
  // checkpoint and older, intact ones would go. Refuse until it is dealt with.
  std::set<std::string> manifest_valid;
  for (const auto& info : list_checkpoints(session.engine.get(), false))
    if (info.status == FRUGAL_CKPT_VALID) manifest_valid.insert(info.name);
  std::string damaged;
  for (const auto& info : list_checkpoints(session.engine.get(), true))
    if (info.status != FRUGAL_CKPT_VALID && manifest_valid.count(info.name) != 0)
      damaged += fmt::format("\n  {}: {}", info.name, info.reason);
  if (!damaged.empty()) {
    fmt::print(stderr,
               "frugal ckpt gc: refusing: these checkpoints have a valid manifest but damaged shards, and retention "
               "would keep them in place of intact older ones:{}\nremove them (or restore their shards) first\n",
               damaged);
    return kExitProblem;
  }
  uint32_t removed = 0;
  host::check(frugal_ckpt_gc(session.engine.get(), &removed));
  // Defaults as documented for frugal_ckpt_engine_create.
  const int64_t keep_heartbeats = settings.keep_heartbeats.value_or(2);
  const int64_t keep_full = settings.keep_full.value_or(2);
  if (parsed.has("--json"))
    fmt::print("{{\n  {}, \"removed\": {}, \"keep_heartbeats\": {}, \"keep_full\": {}\n}}\n",
               header_json(dir, settings.prefix), removed, keep_heartbeats, keep_full);
  else
    fmt::print("removed {} checkpoint{} (keeping {} heartbeat{} and {} full)\n", removed, removed == 1 ? "" : "s",
               keep_heartbeats, keep_heartbeats == 1 ? "" : "s", keep_full);
  return kExitOk;
}

}  // namespace

int cmd_ckpt(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kCkptUsage, args.empty() ? stderr : stdout);
    return args.empty() ? kExitUsage : kExitOk;
  }
  const std::string sub = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    if (sub == "ls") return ckpt_ls(rest);
    if (sub == "latest") return ckpt_latest(rest);
    if (sub == "verify") return ckpt_verify(rest);
    if (sub == "inspect") return ckpt_inspect(rest);
    if (sub == "gc") return ckpt_gc(rest);
    if (sub == "bench") return cmd_ckpt_bench(rest);
  } catch (const UsageError& e) {
    fmt::print(stderr, "frugal ckpt {}: {}\n\n{}", sub, e.what(), kCkptUsage);
    return kExitUsage;
  } catch (const host::Exception& e) {
    fmt::print(stderr, "frugal ckpt {}: {} ({})\n", sub, e.what(), frugal_error_code_name(e.code()));
    return kExitProblem;
  }
  fmt::print(stderr, "frugal ckpt: unknown subcommand '{}'\n\n{}", sub, kCkptUsage);
  return kExitUsage;
}

}  // namespace frugal::cli
