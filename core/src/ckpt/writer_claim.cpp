#include "ckpt/writer_claim.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <random>
#include <string_view>
#include <vector>

namespace frugal::ckpt {
namespace {

constexpr std::string_view kGenerationTag = "gen-";
constexpr std::string_view kReservedTag = "reserved_through=";

// "gen-<20 digits>-<16 hex>": zero-padded, so key order is (generation,
// nonce) order and the newest claim is the last key listed. Two engines
// claiming the same generation at once differ in the nonce: the one with
// the larger nonce wins and the other is fenced at its first check.
std::string claim_name(uint64_t generation, uint64_t nonce) {
  return fmt::format("{}{:020}-{:016x}", kGenerationTag, generation, nonce);
}

std::optional<uint64_t> number_at(std::string_view text) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

// The generation of a claim key's last component; nullopt for foreign keys.
std::optional<uint64_t> generation_of(std::string_view key) {
  const std::string_view name = key.substr(key.rfind('/') + 1);
  if (!name.starts_with(kGenerationTag)) return std::nullopt;
  return number_at(name.substr(kGenerationTag.size()));
}

uint64_t random_nonce() {
  std::random_device device;
  return (uint64_t{device()} << 32) ^ device();
}

}  // namespace

void WriterClaim::write_record(uint64_t reserved_through) const {
  // Human-readable: an operator looking at the prefix sees who writes there.
  const std::string text =
      fmt::format("frugal checkpoint writer claim\ngeneration={}\n{}{}\n", generation_, kReservedTag, reserved_through);
  store_.put(key_, text.data(), text.size());
}

uint64_t WriterClaim::claim(const std::function<uint64_t()>& highest_sequence) {
  try {
    return claim_once(highest_sequence);
  } catch (const Error&) {
    if (!fenced_) {  // a store failure: nothing claimed, the next save tries again
      key_.clear();
      generation_ = 0;
    }
    throw;
  }
}

uint64_t WriterClaim::claim_once(const std::function<uint64_t()>& highest_sequence) {
  uint64_t highest_generation = 0;
  store_.list(claims_prefix(), [&](const std::string& key, uint64_t) {
    highest_generation = std::max(highest_generation, generation_of(key).value_or(0));
    return true;
  });
  generation_ = highest_generation + 1;
  key_ = claims_prefix() + claim_name(generation_, random_nonce());
  write_record(0);  // the fence stands from here on

  // Only now read what older writers reserved: one that reserves after
  // this point sees our claim at its next check and writes nothing.
  uint64_t floor = 0;
  std::vector<std::string> older;
  std::optional<std::string> newer;
  store_.list(claims_prefix(), [&](const std::string& key, uint64_t size) {
    if (key > key_) newer = key;
    if (key >= key_ || !generation_of(key)) return true;
    older.push_back(key);
    std::string text(std::min<uint64_t>(size, 4096), '\0');
    try {
      store_.read(key, 0, text.data(), text.size());
    } catch (const Error&) {
      return true;  // removed meanwhile by a newer claimer
    }
    if (const size_t at = text.find(kReservedTag); at != std::string::npos)
      floor = std::max(floor, number_at(std::string_view(text).substr(at + kReservedTag.size())).value_or(0));
    return true;
  });
  if (newer) fence(*newer, "claiming the prefix");
  floor = std::max(floor, highest_sequence());
  // Our record carries the floor forward before the older records go, so
  // a later claimer always finds it in one of them.
  write_record(floor);
  for (const auto& key : older) {
    try {
      store_.remove(key);
    } catch (const Error& e) {
      store_.log(FRUGAL_LOG_WARN, fmt::format("removing the superseded writer claim {}: {}", key, e.what()));
    }
  }
  return floor + 1;
}

std::optional<std::string> WriterClaim::newest_other_than_ours() const {
  std::optional<std::string> newer;
  store_.list(claims_prefix(), [&](const std::string& key, uint64_t) {
    if (key > key_ && generation_of(key)) newer = key;
    return true;
  });
  return newer;
}

void WriterClaim::refuse_if_fenced(const std::string& what) const {
  if (fenced_) throw Error(fenced_->code(), fmt::format("{} refused: {}", what, fenced_->what()));
}

void WriterClaim::check_current(const std::string& what) {
  refuse_if_fenced(what);
  if (auto newer = newest_other_than_ours()) fence(*newer, what);
}

void WriterClaim::reserve(uint64_t sequence, const std::string& what) {
  check_current(what);
  write_record(sequence);
  check_current(what);
}

void WriterClaim::fence(const std::string& newer, const std::string& what) {
  const std::string reason = fmt::format(
      "this engine (writer generation {}) no longer owns prefix '{}' of {}: generation {} claimed it ({}); another "
      "job writes there now, so this one writes and removes nothing more",
      generation_, prefix_, store_.label(), generation_of(newer).value_or(0), newer);
  store_.log(FRUGAL_LOG_ERROR, reason);
  fenced_ = Error(FRUGAL_ERR_FAILED_PRECONDITION, reason);
  throw Error(FRUGAL_ERR_FAILED_PRECONDITION, fmt::format("{} refused: {}", what, reason));
}

}  // namespace frugal::ckpt
