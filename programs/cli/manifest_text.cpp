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

  const auto& shards = m.at("shards");
  out += fmt::format("\nshards ({})\n", shards.size());
  if (!shards.empty()) out += fmt::format("  {:<32} {:>14} {}\n", "KEY", "BYTES", "XXH3");
  for (const auto& s : shards)
    out += fmt::format("  {:<32} {:>14} {}\n", terminal_text(s.at("key").get<std::string>()),
                       s.at("size").get<uint64_t>(), terminal_text(s.at("xxh3").get<std::string>()));

  const auto& tensors = m.at("tensors");
  out += fmt::format("\ntensors ({})\n", tensors.size());
  const size_t tensor_width = name_width(tensors, "name");
  if (!tensors.empty())
    out += fmt::format("  {:<{}} {:<9} {:<16} {:>14} {}\n", "NAME", tensor_width, "DTYPE", "SHAPE", "BYTES", "SHARD");
  for (const auto& t : tensors)
    out += fmt::format("  {:<{}} {:<9} {:<16} {:>14} {}\n", terminal_text(t.at("name").get<std::string>()),
                       tensor_width, terminal_text(t.at("dtype").get<std::string>()), shape_text(t.at("shape")),
                       t.at("bytes").get<uint64_t>(), t.at("shard").get<uint32_t>());

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
