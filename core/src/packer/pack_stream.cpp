// frugal_pack_stream_*: packing with a bounded window, for loaders that
// never see the whole dataset. Each round packs the window with the
// packer's strategy, hands out the fullest packs and keeps the emptiest
// ones' units (at most half the window, none older than max_rounds rounds)
// to combine with later arrivals: short leftovers get a second chance to
// fill a row instead of being shipped half empty.
#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "error.hpp"
#include "frugal/options.h"
#include "frugal/packer.h"
#include "options.hpp"
#include "packer/packer_api.hpp"

struct frugal_pack_stream {
  std::shared_ptr<frugal::pack::PackerCore> core;
  std::size_t window = 4096;
  int64_t max_rounds = 4;
  frugal::pack::UnitTable held;
  std::vector<int64_t> rounds;  // per held unit: rounds it has been packed and kept
  frugal::pack::GroupedPacks ready;
  std::string method;  // of the latest round

  explicit frugal_pack_stream(std::shared_ptr<frugal::pack::PackerCore> c) : core(std::move(c)), held(core->limits()) {}
};

namespace {

using frugal::fail;

// Packs the held units. With `everything`, all packs are handed out;
// otherwise the emptiest are kept. All-or-nothing: on error the stream is
// unchanged.
void run_round(frugal_pack_stream& s, bool everything) {
  if (s.held.size() == 0) return;
  const auto lengths = s.held.lengths();
  frugal::pack::Assignment a = s.core->pack(lengths);
  const std::size_t packs = a.pack_offsets.size() - 1;

  std::vector<uint8_t> keep(packs, 0);
  std::size_t kept_units = 0;
  if (!everything) {
    std::vector<int64_t> tokens(packs, 0);
    for (std::size_t p = 0; p < packs; ++p)
      for (auto k = a.pack_offsets[p]; k < a.pack_offsets[p + 1]; ++k)
        tokens[p] += a.unit_lengths[static_cast<std::size_t>(k)];
    std::vector<std::size_t> by_fill(packs);
    std::iota(by_fill.begin(), by_fill.end(), std::size_t{0});
    std::stable_sort(by_fill.begin(), by_fill.end(),
                     [&](std::size_t x, std::size_t y) { return tokens[x] < tokens[y]; });
    const std::size_t budget = s.window / 2;
    for (const std::size_t p : by_fill) {
      if (tokens[p] == s.core->limits().max_len) break;  // full packs are always handed out
      const auto size = static_cast<std::size_t>(a.pack_offsets[p + 1] - a.pack_offsets[p]);
      if (kept_units + size > budget) continue;
      bool young = true;
      for (auto k = a.pack_offsets[p]; k < a.pack_offsets[p + 1] && young; ++k)
        young = s.rounds[static_cast<std::size_t>(a.units[static_cast<std::size_t>(k)])] + 1 < s.max_rounds;
      if (!young) continue;
      keep[p] = 1;
      kept_units += size;
    }
  }

  // Commit: emitted packs in assignment order, kept units back to the window.
  std::vector<int64_t> emit_units;
  std::vector<int64_t> emit_offsets{0};
  std::vector<int64_t> kept;
  emit_units.reserve(s.held.size() - kept_units);
  kept.reserve(kept_units);
  for (std::size_t p = 0; p < packs; ++p) {
    auto& dest = keep[p] != 0 ? kept : emit_units;
    for (auto k = a.pack_offsets[p]; k < a.pack_offsets[p + 1]; ++k)
      dest.push_back(a.units[static_cast<std::size_t>(k)]);
    if (keep[p] == 0) emit_offsets.push_back(static_cast<int64_t>(emit_units.size()));
  }
  std::vector<int64_t> kept_rounds;
  kept_rounds.reserve(kept.size());
  for (const int64_t u : kept) kept_rounds.push_back(s.rounds[static_cast<std::size_t>(u)] + 1);
  s.held.append_grouped(emit_units, emit_offsets, s.ready);
  s.held.retain(kept);
  s.rounds = std::move(kept_rounds);
  s.method = std::move(a.method);
}

}  // namespace

extern "C" {

FRUGAL_API frugal_error* frugal_pack_stream_create(frugal_packer* packer, const frugal_options* options,
                                                   frugal_pack_stream** out) {
  constexpr const char* kFn = "frugal_pack_stream_create";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(packer, kFn, "packer");
    frugal::require_non_null(out, kFn, "out");
    auto stream = std::make_unique<frugal_pack_stream>(packer->core);
    if (options != nullptr) {
      static const char* const kKnown[] = {"window", "max_rounds"};
      frugal::rethrow_if_error(frugal::options_check_known(options, kKnown, 2, "pack stream"), "");
      int64_t window = 0;
      frugal::rethrow_if_error(frugal_options_get_int(options, "window", 4096, &window), "");
      if (window < 1) fail(FRUGAL_ERR_INVALID_ARGUMENT, "pack stream: option 'window' must be >= 1, got {}", window);
      stream->window = static_cast<std::size_t>(window);
      frugal::rethrow_if_error(frugal_options_get_int(options, "max_rounds", 4, &stream->max_rounds), "");
      if (stream->max_rounds < 1)
        fail(FRUGAL_ERR_INVALID_ARGUMENT, "pack stream: option 'max_rounds' must be >= 1, got {}", stream->max_rounds);
    }
    stream->method = "none";
    *out = stream.release();
  });
}

FRUGAL_API frugal_error* frugal_pack_stream_push(frugal_pack_stream* stream, int64_t sequence_id, int64_t length) {
  constexpr const char* kFn = "frugal_pack_stream_push";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(stream, kFn, "stream");
    const std::size_t before = stream->held.size();
    // One long sequence split into pieces may be more units than memory
    // holds (a length of 7.8e9 at max_len 1); counted before adding.
    if (length >= 1) {
      const uint64_t pieces = frugal::pack::units_of(length, stream->core->limits());
      if (pieces > 1)
        frugal::pack::check_units(before + stream->ready.units() + pieces, frugal::pack::unit_budget(), kFn,
                                  fmt::format("sequence {} (length {}, {} pieces)", sequence_id, length, pieces));
    }
    stream->held.add(sequence_id, length);
    stream->rounds.resize(stream->held.size(), 0);
    try {
      // A long split sequence may bring more than a window at once; each
      // round leaves at most half a window held, so this ends.
      while (stream->held.size() >= stream->window) run_round(*stream, false);
    } catch (...) {
      stream->held.truncate_to(before);
      stream->rounds.resize(before);
      throw;
    }
  });
}

FRUGAL_API frugal_error* frugal_pack_stream_flush(frugal_pack_stream* stream) {
  return frugal::guard("frugal_pack_stream_flush", [&] {
    frugal::require_non_null(stream, "frugal_pack_stream_flush", "stream");
    run_round(*stream, true);
  });
}

FRUGAL_API frugal_error* frugal_pack_stream_pop(frugal_pack_stream* stream, frugal_pack_plan** out) {
  constexpr const char* kFn = "frugal_pack_stream_pop";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(stream, kFn, "stream");
    frugal::require_non_null(out, kFn, "out");
    auto plan = frugal::pack::make_plan(std::move(stream->ready), stream->core->limits(), stream->method);
    stream->ready = frugal::pack::GroupedPacks{};
    *out = plan.release();
  });
}

FRUGAL_API frugal_error* frugal_pack_stream_pending(const frugal_pack_stream* stream, size_t* held, size_t* ready) {
  return frugal::guard("frugal_pack_stream_pending", [&] {
    frugal::require_non_null(stream, "frugal_pack_stream_pending", "stream");
    if (held != nullptr) *held = stream->held.size();
    if (ready != nullptr) *ready = stream->ready.packs();
  });
}

FRUGAL_API void frugal_pack_stream_destroy(frugal_pack_stream* stream) { delete stream; }

}  // extern "C"
