#include "manifest_text.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "ckpt_session.hpp"
#include "terminal_text.hpp"

namespace frugal::cli {
namespace {

// "heartbeat,full": the kinds a state is saved in.
std::string kinds_text(const json::Json& kinds) {
  std::string out;
  for (const auto& kind : kinds) out += (out.empty() ? "" : ",") + terminal_text(kind.get<std::string>());
  return out.empty() ? "-" : out;
}

// The width of a NAME column: the longest name, at least 32.
size_t name_width(const json::Json& rows, const char* key) {
  size_t width = 32;
  for (const auto& row : rows) width = std::max(width, terminal_text(row.at(key).get<std::string>()).size());
  return width;
}

std::string shape_text(const json::Json& shape) {
  std::string out;
  for (const auto& extent : shape) out += (out.empty() ? "" : "x") + std::to_string(extent.get<int64_t>());
  return out.empty() ? "scalar" : out;
}

// "4,0": where a chunk starts in its global tensor.
std::string offsets_text(const json::Json& offsets) {
  std::string out;
  for (const auto& offset : offsets) out += (out.empty() ? "" : ",") + std::to_string(offset.get<int64_t>());
  return out.empty() ? "-" : out;
}

}  // namespace

std::string manifest_text(const json::Json& m) {
  const auto text = [&](const char* key) { return terminal_text(m.at(key).get<std::string>()); };
  const std::string created = utc_time(m.at("created_unix_ns").get<int64_t>());
  std::string out = fmt::format("{}\n", text("name"));
  out +=
      fmt::format("  kind       {}\n  step       {}\n  sequence   {}\n  generation {}\n", text("kind"),
                  m.at("step").get<uint64_t>(), m.at("sequence").get<uint64_t>(), m.at("generation").get<uint64_t>());
  out += fmt::format("  created    {}\n  emergency  {}\n  writer     {}\n  metadata   {} B\n  format     {}\n",
                     created.empty() ? "-" : created, m.at("emergency").get<bool>() ? "yes" : "no", text("writer"),
                     m.at("metadata_bytes").get<uint64_t>(), m.at("format_version").get<uint32_t>());
  // A checkpoint of a job of several ranks (format 3): its world size, the
  // rank that wrote each shard, and each tensor record as a chunk (where
  // it starts in which global tensor) or a rank's own tensor.
  const bool sharded = m.contains("world_size");
  if (sharded)
    out += fmt::format("  world size {}\n  blocks     {} B\n", m.at("world_size").get<uint32_t>(),
                       m.at("block_bytes").get<uint64_t>());
  // The ranks that saved metadata of their own; every other rank saved
  // rank 0's (the `metadata` line).
  if (sharded && m.contains("rank_metadata")) {
    std::string own;
    for (const auto& entry : m.at("rank_metadata"))
      own += fmt::format("{}rank {}: {} B", own.empty() ? "" : ", ", entry.at("rank").get<uint32_t>(),
                         entry.at("bytes").get<uint64_t>());
    out += fmt::format("  own meta   {}\n", own.empty() ? "- (every rank saved rank 0's)" : own);
  }

  const auto& shards = m.at("shards");
  out += fmt::format("\nshards ({})\n", shards.size());
  if (!shards.empty())
    out += sharded ? fmt::format("  {:<32} {:>14} {:>5} {}\n", "KEY", "BYTES", "RANK", "XXH3")
                   : fmt::format("  {:<32} {:>14} {}\n", "KEY", "BYTES", "XXH3");
  for (const auto& s : shards)
    out += sharded ? fmt::format("  {:<32} {:>14} {:>5} {}\n", terminal_text(s.at("key").get<std::string>()),
                                 s.at("size").get<uint64_t>(), s.at("rank").get<uint32_t>(),
                                 terminal_text(s.at("xxh3").get<std::string>()))
                   : fmt::format("  {:<32} {:>14} {}\n", terminal_text(s.at("key").get<std::string>()),
                                 s.at("size").get<uint64_t>(), terminal_text(s.at("xxh3").get<std::string>()));

  const auto& tensors = m.at("tensors");
  out += fmt::format("\ntensors ({})\n", tensors.size());
  const size_t tensor_width = name_width(tensors, "name");
  if (!tensors.empty())
    out += sharded ? fmt::format("  {:<{}} {:<9} {:<16} {:<12} {:<16} {:>14} {}\n", "NAME", tensor_width, "DTYPE",
                                 "SHAPE", "AT", "OF", "BYTES", "SHARD")
                   : fmt::format("  {:<{}} {:<9} {:<16} {:>14} {}\n", "NAME", tensor_width, "DTYPE", "SHAPE", "BYTES",
                                 "SHARD");
  for (const auto& t : tensors) {
    const std::string name = terminal_text(t.at("name").get<std::string>());
    const std::string dtype = terminal_text(t.at("dtype").get<std::string>());
    if (sharded) {
      const bool own = t.contains("rank_local") && t.at("rank_local").get<bool>();
      out += fmt::format("  {:<{}} {:<9} {:<16} {:<12} {:<16} {:>14} {}\n", name, tensor_width, dtype,
                         shape_text(t.at("shape")), own ? "-" : offsets_text(t.at("offsets")),
                         own ? "rank-local" : shape_text(t.at("global_shape")), t.at("bytes").get<uint64_t>(),
                         t.at("shard").get<uint32_t>());
    } else {
      out += fmt::format("  {:<{}} {:<9} {:<16} {:>14} {}\n", name, tensor_width, dtype, shape_text(t.at("shape")),
                         t.at("bytes").get<uint64_t>(), t.at("shard").get<uint32_t>());
    }
  }

  // The registered states (frugal_ckpt_register_state and the router,
  // quantizer, scheduler and loss scaler registrations).
  const auto& states = m.at("states");
  out += fmt::format("\nstates ({})\n", states.size());
  const size_t state_width = name_width(states, "name");
  if (!states.empty()) out += fmt::format("  {:<{}} {:<16} {:>14} {}\n", "NAME", state_width, "KINDS", "BYTES", "XXH3");
  for (const auto& st : states)
    out += fmt::format("  {:<{}} {:<16} {:>14} {}\n", terminal_text(st.at("name").get<std::string>()), state_width,
                       kinds_text(st.at("kinds")), st.at("size").get<uint64_t>(),
                       terminal_text(st.at("xxh3").get<std::string>()));
  return out;
}

}  // namespace frugal::cli
