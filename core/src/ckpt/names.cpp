#include "ckpt/names.hpp"

#include <fmt/format.h>

#include <charconv>

#include "frugal/checkpoint.h"

namespace frugal::ckpt {
namespace {

std::optional<uint64_t> parse_number(std::string_view text) {
  uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::string format_checkpoint_name(int32_t kind, uint64_t step, uint64_t sequence) {
  return fmt::format("{}-{:012}-{:08}", kind == FRUGAL_CKPT_FULL ? "full" : "hb", step, sequence);
}

std::optional<CheckpointId> parse_checkpoint_name(std::string_view name) {
  const size_t first = name.find('-');
  const size_t second = first == name.npos ? name.npos : name.find('-', first + 1);
  if (second == name.npos || name.find('-', second + 1) != name.npos) return std::nullopt;
  const std::string_view kind = name.substr(0, first);
  CheckpointId id;
  if (kind == "full")
    id.kind = FRUGAL_CKPT_FULL;
  else if (kind == "hb")
    id.kind = FRUGAL_CKPT_HEARTBEAT;
  else
    return std::nullopt;
  const auto step = parse_number(name.substr(first + 1, second - first - 1));
  const auto sequence = parse_number(name.substr(second + 1));
  if (!step || !sequence) return std::nullopt;
  id.name = std::string(name);
  id.step = *step;
  id.sequence = *sequence;
  return id;
}

}  // namespace frugal::ckpt
