// `frugal ckpt ...`: look at, verify and tidy the checkpoints a checkpoint
// engine wrote into a directory (the "fs" store), through the public C API
// only. Exit codes: 0 ok, 1 the command found a problem (a committed
// checkpoint that fails, no valid checkpoint, a store error), 2 bad usage.
// Text that comes from the store (reasons quoting a manifest, the manifest
// itself) is escaped on the way out: ASCII-only JSON (json_text.hpp), no
// control characters on the terminal (terminal_text.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt_args.hpp"
#include "ckpt_session.hpp"
#include "commands.hpp"
#include "help_text.hpp"
#include "json_text.hpp"
#include "manifest_text.hpp"
#include "terminal_text.hpp"

namespace frugal::cli {
namespace {

using args::switch_flag;
using args::value_flag;

// What every subcommand accepts besides its own flags.
args::Option prefix_flag() {
  return value_flag("--prefix", "P",
                    "the engine's key prefix inside DIR: its checkpoints are the directories DIR/P/<name>");
}
args::Option json_flag() { return switch_flag("--json", "the result as a JSON object on stdout (an error too)"); }
args::Positional dir_positional() { return {"DIR", "the \"fs\" store's root"}; }

const args::Spec& ls_spec() {
  static const args::Spec spec{
      "frugal ckpt ls",
      "every checkpoint, newest first, with its status",
      "Every checkpoint in DIR, newest first, with its status.",
      {dir_positional()},
      {switch_flag("--verify", "also read and check every shard"), json_flag(), prefix_flag()}};
  return spec;
}

const args::Spec& latest_spec() {
  static const args::Spec spec{
      "frugal ckpt latest",
      "the newest fully verified checkpoint (exit 1: none)",
      "The newest fully verified checkpoint in DIR; exit 1 when there is none.",
      {dir_positional()},
      {value_flag("--kind", "heartbeat|full", "only checkpoints of this kind (default: either)"), json_flag(),
       prefix_flag()}};
  return spec;
}

const args::Spec& verify_spec() {
  static const args::Spec spec{
      "frugal ckpt verify",
      "full verification of NAMEs, or of every checkpoint",
      "Full verification of the NAMEd checkpoints, or of all. Safe on the store of a running job: a save in progress "
      "(newer than the newest valid checkpoint, no manifest yet), one that retention removed while it was read and an "
      "interrupted save are listed but do not fail. Exit 0: every committed checkpoint verified, 1: one failed (or a "
      "NAME is not a valid checkpoint, or the store cannot be read), 2: bad usage.",
      {dir_positional(), {"NAME...", "the checkpoints to verify (default: every one)", true}},
      {json_flag(), prefix_flag()}};
  return spec;
}

const args::Spec& inspect_spec() {
  static const args::Spec spec{
      "frugal ckpt inspect",
      "a checkpoint's manifest",
      "The manifest of checkpoint NAME: kind, step, writer, its shards, tensors and registered states (name, kinds, "
      "bytes, checksum).",
      {dir_positional(), {"NAME", "the checkpoint"}},
      {switch_flag("--json", "the manifest as JSON"), prefix_flag()}};
  return spec;
}

const args::Spec& gc_spec() {
  static const args::Spec spec{
      "frugal ckpt gc",
      "apply retention, refusing while a checkpoint is damaged",
      "Applies retention to DIR. Reads every shard first and refuses while a checkpoint is damaged.",
      {dir_positional()},
      {value_flag("--keep-heartbeats", "N", "heartbeat checkpoints to keep, 1 to 1000000 (engine default: 2)"),
       value_flag("--keep-full", "M", "full checkpoints to keep, 1 to 1000000 (engine default: 2)"), json_flag(),
       prefix_flag()}};
  return spec;
}

struct Subcommand {
  const char* name;
  const args::Spec& (*spec)();
};

constexpr Subcommand kSubcommands[] = {{"ls", ls_spec},           {"latest", latest_spec}, {"verify", verify_spec},
                                       {"inspect", inspect_spec}, {"gc", gc_spec},         {"bench", ckpt_bench_spec}};

const Subcommand* find_subcommand(const std::string& name) {
  for (const auto& sub : kSubcommands)
    if (name == sub.name) return &sub;
  return nullptr;
}

// `frugal ckpt --help`: the group's text, then each subcommand's short
// usage and brief (its own --help has the rest).
std::string group_help() {
  const std::string group = ckpt_spec().program + " ";
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& sub : kSubcommands)
    rows.emplace_back(args::short_usage(sub.spec()).substr(group.size()), sub.spec().brief);
  return args::help_text(ckpt_spec()) + "\nsubcommands:\n" + args::two_columns(rows);
}

// DIR: the first positional.
std::string dir_arg(const ParsedArgs& parsed, const char* what) {
  if (parsed.positional.empty()) throw UsageError(fmt::format("{} needs DIR", what));
  return parsed.positional.front();
}

// Throws a Problem when `dir` is not a directory: the commands that look at
// checkpoints never create a store root by accident.
void check_dir(const std::string& dir) {
  if (!is_directory(dir)) throw Problem("NOT_FOUND", fmt::format("'{}' is not a directory", dir));
}

EngineSettings settings_from(const ParsedArgs& parsed) {
  EngineSettings settings;
  settings.prefix = parsed.value("--prefix").value_or("");
  if (const auto keep = parsed.value("--keep-heartbeats"))
    settings.keep_heartbeats = parse_int_flag("--keep-heartbeats", *keep, 1, 1000000);
  if (const auto keep = parsed.value("--keep-full"))
    settings.keep_full = parse_int_flag("--keep-full", *keep, 1, 1000000);
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

// A subcommand's --json object: "dir" and "prefix", then `members`.
json::Json with_header(const std::string& dir, const std::string& prefix, const json::Json& members) {
  json::Json out = {{"dir", dir}, {"prefix", prefix}};
  out.update(members);
  return out;
}

json::Json info_array(const std::vector<frugal_ckpt_info>& infos) {
  json::Json out = json::Json::array();
  for (const auto& info : infos) out.push_back(info_json(info));
  return out;
}

void print_json(const json::Json& value) { fmt::print("{}\n", json::json_text(value)); }

void print_table(const std::vector<frugal_ckpt_info>& infos) {
  fmt::print("{:<26} {:<9} {:>12} {:>8} {:<12} {:>11} {:>7} {:>5} {:<9} {:<20} {}\n", "NAME", "KIND", "STEP", "SEQ",
             "STATUS", "BYTES", "TENSORS", "RANKS", "EMERGENCY", "CREATED (UTC)", "REASON");
  for (const auto& info : infos) {
    const bool valid = info.status == FRUGAL_CKPT_VALID;
    const std::string created = utc_time(info.created_unix_ns);
    fmt::print("{:<26} {:<9} {:>12} {:>8} {:<12} {:>11} {:>7} {:>5} {:<9} {:<20} {}\n", terminal_text(info.name),
               kind_name(info.kind), info.step, info.sequence, status_name(info.status),
               valid ? human_bytes(static_cast<double>(info.bytes)) : "-",
               valid ? fmt::format("{}", info.tensor_count) : "-",
               info.world_size > 0 ? fmt::format("{}", info.world_size) : "-", info.emergency != 0 ? "yes" : "no",
               created.empty() ? "-" : created, terminal_text(info.reason));
  }
}

void print_details(const frugal_ckpt_info& info) {
  const std::string created = utc_time(info.created_unix_ns);
  fmt::print("{}\n", terminal_text(info.name));
  fmt::print("  kind       {}\n  step       {}\n  sequence   {}\n  status     {}\n", kind_name(info.kind), info.step,
             info.sequence, status_name(info.status));
  fmt::print("  bytes      {} ({})\n  tensors    {}\n  ranks      {}\n  emergency  {}\n  created    {}\n", info.bytes,
             human_bytes(static_cast<double>(info.bytes)), info.tensor_count,
             info.world_size > 0 ? fmt::format("{}", info.world_size) : "-", info.emergency != 0 ? "yes" : "no",
             created.empty() ? "-" : created);
  if (info.reason[0] != '\0') fmt::print("  reason     {}\n", terminal_text(info.reason));
}

int ckpt_ls(const std::vector<std::string>& args) {
  const auto parsed = parse_args(args, ls_spec());
  const std::string dir = dir_arg(parsed, "ls");
  if (parsed.positional.size() > 1)
    throw UsageError(fmt::format("ls takes one DIR, got '{}' too", parsed.positional[1]));
  const auto settings = settings_from(parsed);
  check_dir(dir);
  auto session = open_session(dir, settings);
  const bool deep = parsed.has("--verify");
  const auto infos = list_checkpoints(session.engine.get(), deep);
  if (parsed.has("--json")) {
    print_json(with_header(dir, settings.prefix, {{"verified_shards", deep}, {"checkpoints", info_array(infos)}}));
  } else if (infos.empty()) {
    fmt::print("no checkpoints in {}{}\n", terminal_text(dir),
               settings.prefix.empty() ? "" : " under prefix '" + terminal_text(settings.prefix) + "'");
  } else {
    print_table(infos);
  }
  return kExitOk;
}

int ckpt_latest(const std::vector<std::string>& args) {
  const auto parsed = parse_args(args, latest_spec());
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
  check_dir(dir);
  auto session = open_session(dir, settings);
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  frugal_error* error = frugal_ckpt_latest(session.engine.get(), kinds, &info);
  if (error != nullptr && frugal_error_code(error) == FRUGAL_ERR_NOT_FOUND) {
    const std::string reason = frugal_error_message(error);
    frugal_error_destroy(error);
    if (parsed.has("--json"))
      print_json(
          with_header(dir, settings.prefix, {{"kind", kinds_text}, {"checkpoint", nullptr}, {"reason", reason}}));
    fmt::print(stderr, "frugal ckpt latest: {}: {}\n", terminal_text(dir), terminal_text(reason));
    return kExitProblem;
  }
  host::check(error);
  if (parsed.has("--json"))
    print_json(with_header(dir, settings.prefix, {{"kind", kinds_text}, {"checkpoint", info_json(info)}}));
  else
    print_details(info);
  return kExitOk;
}

// One checkpoint as verify reports it. `status` is status_name, or for a
// checkpoint that is not (yet, or any more) committed one of the live-store
// outcomes below, or "not-found" / "error" for a NAME the engine refused.
struct VerifyRow {
  frugal_ckpt_info info{};
  std::string status;
  bool failed = false;
};

// Outcomes of a checkpoint without a manifest, none of them a failure: a
// running job's next save, a checkpoint retention removed while we read
// it, and the leftover of a save that never finished (gc removes those).
constexpr const char* kInProgress = "in-progress";
constexpr const char* kRetired = "retired";
constexpr const char* kIncomplete = "incomplete";

// Copies `text` into a fixed frugal_ckpt_info field, cut to fit, terminated.
template <size_t N>
void set_field(char (&field)[N], std::string_view text) {
  const size_t n = std::min(text.size(), N - 1);
  std::copy_n(text.data(), n, field);
  field[n] = '\0';
}

// frugal_ckpt_verify of `name` into `row`; false when the engine does not
// know the name (NOT_FOUND, or INVALID_ARGUMENT for a malformed one), with
// the reason in row.info.reason. Store errors throw.
bool verify_named(frugal_ckpt_engine* engine, const std::string& name, VerifyRow& row) {
  row.info = frugal_ckpt_info{};
  row.info.struct_size = sizeof(row.info);
  frugal_error* error = frugal_ckpt_verify(engine, name.c_str(), &row.info);
  if (error == nullptr) {
    row.status = status_name(row.info.status);
    return true;
  }
  const int32_t code = frugal_error_code(error);
  if (code != FRUGAL_ERR_NOT_FOUND && code != FRUGAL_ERR_INVALID_ARGUMENT) host::check(error);
  set_field(row.info.name, name);
  set_field(row.info.reason, frugal_error_message(error));
  row.status = code == FRUGAL_ERR_NOT_FOUND ? "not-found" : "error";
  frugal_error_destroy(error);
  return false;
}

// Every checkpoint of the store, verified while a job may be saving into it
// and retention removing from it. A listing is a snapshot that is stale by
// the time each checkpoint is read, so anything that did not verify is
// looked at once more by name before it counts: gone by then means retired;
// valid by then means it was committed meanwhile; still without a manifest
// means in progress when newer than every valid checkpoint, else an
// interrupted save. Only a committed checkpoint failing its checks is left.
std::vector<VerifyRow> verify_all(frugal_ckpt_engine* engine) {
  std::vector<VerifyRow> rows;
  for (const auto& info : list_checkpoints(engine, true)) rows.push_back({info, status_name(info.status)});
  for (auto& row : rows) {
    if (row.info.status == FRUGAL_CKPT_VALID) continue;
    VerifyRow again;
    if (!verify_named(engine, row.info.name, again)) {
      row.status = kRetired;
      set_field(row.info.reason, "removed while being read (retention): not damaged");
      continue;
    }
    row.info = again.info;
    row.status = again.status;
  }
  uint64_t newest_valid = 0;
  for (const auto& row : rows)
    if (row.status == "valid") newest_valid = std::max(newest_valid, row.info.sequence);
  for (auto& row : rows) {
    if (row.status == kRetired || row.info.status == FRUGAL_CKPT_VALID) continue;
    if (row.info.status == FRUGAL_CKPT_INCOMPLETE)
      row.status = row.info.sequence > newest_valid ? kInProgress : kIncomplete;
    else
      row.failed = true;
  }
  return rows;
}

int ckpt_verify(const std::vector<std::string>& args) {
  const auto parsed = parse_args(args, verify_spec());
  const std::string dir = dir_arg(parsed, "verify");
  const auto settings = settings_from(parsed);
  check_dir(dir);
  auto session = open_session(dir, settings);

  std::vector<VerifyRow> rows;
  if (parsed.positional.size() == 1) {
    rows = verify_all(session.engine.get());
  } else {
    // Named checkpoints: each must be valid, whatever the reason it is not.
    for (size_t i = 1; i < parsed.positional.size(); ++i) {
      VerifyRow row;
      verify_named(session.engine.get(), parsed.positional[i], row);
      row.failed = row.status != "valid";
      rows.push_back(row);
    }
  }

  std::vector<const VerifyRow*> failed;
  size_t valid = 0;
  for (const auto& row : rows) {
    if (row.failed) failed.push_back(&row);
    if (row.status == "valid") ++valid;
  }
  const auto count = [&](const char* status) {
    return std::count_if(rows.begin(), rows.end(), [&](const VerifyRow& row) { return row.status == status; });
  };
  if (parsed.has("--json")) {
    json::Json checkpoints = json::Json::array();
    for (const auto& row : rows) checkpoints.push_back(info_json(row.info, row.status));
    print_json(with_header(dir, settings.prefix,
                           {{"checked", rows.size()},
                            {"failed", failed.size()},
                            {"valid", valid},
                            {"in_progress", count(kInProgress)},
                            {"retired", count(kRetired)},
                            {"incomplete", count(kIncomplete)},
                            {"checkpoints", std::move(checkpoints)}}));
  } else {
    if (rows.empty()) fmt::print("no checkpoints in {}\n", terminal_text(dir));
    for (const auto& row : rows)
      fmt::print("{:<26} {:<12} {:<9} {}\n", terminal_text(row.info.name), row.status,
                 row.info.world_size == 0   ? "-"
                 : row.info.world_size == 1 ? "1 rank"
                                            : fmt::format("{} ranks", row.info.world_size),
                 terminal_text(row.info.reason));
    if (!rows.empty()) {
      std::string others;
      for (const char* status : {kInProgress, kRetired, kIncomplete})
        if (const auto n = count(status); n > 0) others += fmt::format(", {} {}", n, status);
      fmt::print("{} checked: {} valid, {} failed{}\n", rows.size(), valid, failed.size(), others);
    }
  }
  if (failed.empty()) return kExitOk;
  std::string which;
  for (const VerifyRow* row : failed)
    which +=
        fmt::format("\n  {} ({}): {}", terminal_text(row->info.name), row->status, terminal_text(row->info.reason));
  fmt::print(stderr, "frugal ckpt verify: {} of {} failed:{}\n", failed.size(), rows.size(), which);
  return kExitProblem;
}

int ckpt_inspect(const std::vector<std::string>& args) {
  const auto parsed = parse_args(args, inspect_spec());
  if (parsed.positional.size() != 2) throw UsageError("inspect needs DIR and one checkpoint NAME");
  const std::string& dir = parsed.positional[0];
  const auto settings = settings_from(parsed);
  check_dir(dir);
  auto session = open_session(dir, settings);
  char* json = nullptr;
  host::check(frugal_ckpt_inspect_json(session.engine.get(), parsed.positional[1].c_str(), &json));
  const std::string text = json;
  frugal_string_free(json);
  if (parsed.has("--json")) {
    // The library escapes manifest text (control characters, invalid UTF-8).
    fmt::print("{}{}", text, !text.empty() && text.back() == '\n' ? "" : "\n");
  } else {
    fmt::print("{}", manifest_text(json::Json::parse(text)));
  }
  return kExitOk;
}

int ckpt_gc(const std::vector<std::string>& args) {
  const auto parsed = parse_args(args, gc_spec());
  const std::string dir = dir_arg(parsed, "gc");
  if (parsed.positional.size() > 1)
    throw UsageError(fmt::format("gc takes one DIR, got '{}' too", parsed.positional[1]));
  const auto settings = settings_from(parsed);
  check_dir(dir);
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
      damaged += fmt::format("\n  {}: {}", terminal_text(info.name), terminal_text(info.reason));
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
    print_json(with_header(dir, settings.prefix,
                           {{"removed", removed}, {"keep_heartbeats", keep_heartbeats}, {"keep_full", keep_full}}));
  else
    fmt::print("removed {} checkpoint{} (keeping {} heartbeat{} and {} full)\n", removed, removed == 1 ? "" : "s",
               keep_heartbeats, keep_heartbeats == 1 ? "" : "s", keep_full);
  return kExitOk;
}

}  // namespace

const args::Spec& ckpt_spec() {
  static const args::Spec spec{
      "frugal ckpt",
      "checkpoints in a directory: list, find the newest valid one, verify, show a manifest, apply retention, "
      "benchmark saves (`frugal ckpt help`)",
      "Looks at, verifies and tidies the checkpoints a checkpoint engine wrote into DIR (the \"fs\" store), through "
      "the public C API only. Every subcommand accepts --prefix P (the engine's key prefix inside DIR: its "
      "checkpoints are the directories DIR/P/<name>) and --help (`frugal ckpt help SUBCOMMAND` is the same). Exit "
      "codes: 0 ok, 1 a problem found, 2 bad usage; under --json an error is a JSON object on stdout.",
      {{"SUBCOMMAND", "ls, latest, verify, inspect, gc or bench"}, dir_positional()},
      {}};
  return spec;
}

int cmd_ckpt(const std::vector<std::string>& args) {
  const bool json = has_word(args, "--json");
  if (args.empty())
    return report_error("ckpt", "USAGE", "needs a subcommand (ls, latest, verify, inspect, gc, bench)", kExitUsage,
                        json);
  if (args[0] == "help" || is_help(args[0])) {
    // `frugal ckpt help SUB` is `frugal ckpt SUB --help`.
    const Subcommand* sub = args.size() > 1 ? find_subcommand(args[1]) : nullptr;
    if (sub != nullptr) return print_help(sub->spec());
    fmt::print("{}", group_help());
    return kExitOk;
  }
  const std::string& sub = args[0];
  const std::string command = "ckpt " + sub;
  const Subcommand* known = find_subcommand(sub);
  if (known == nullptr)
    return report_error("ckpt", "USAGE", fmt::format("unknown subcommand '{}'", sub), kExitUsage, json);
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (wants_help(rest)) return print_help(known->spec());
  return run_reporting_errors(command, json, [&] {
    if (sub == "ls") return ckpt_ls(rest);
    if (sub == "latest") return ckpt_latest(rest);
    if (sub == "verify") return ckpt_verify(rest);
    if (sub == "inspect") return ckpt_inspect(rest);
    if (sub == "gc") return ckpt_gc(rest);
    return cmd_ckpt_bench(rest);
  });
}

}  // namespace frugal::cli
