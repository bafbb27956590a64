#include "test_packer_common.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "test_helpers.hpp"

namespace frugal::test {

const char* dist_name(Dist d) {
  switch (d) {
    case Dist::uniform: return "uniform";
    case Dist::lognormal_tail: return "lognormal_tail";
    case Dist::bimodal: return "bimodal";
    case Dist::short_heavy: return "short_heavy";
  }
  return "?";
}

std::vector<int64_t> make_lengths(Dist d, std::size_t n, int64_t max_len, int64_t limit, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto m = static_cast<double>(max_len);
  std::uniform_int_distribution<int64_t> uniform(1, limit);
  std::lognormal_distribution<double> lognormal(std::log(m / 6.0), 1.0);
  std::normal_distribution<double> low(0.15 * m, 0.05 * m);
  std::normal_distribution<double> high(0.8 * m, 0.08 * m);
  std::bernoulli_distribution coin(0.5);
  std::bernoulli_distribution rare(0.05);
  std::geometric_distribution<int64_t> chat(10.0 / m);
  std::uniform_int_distribution<int64_t> long_doc(std::max<int64_t>(1, max_len / 2), limit);
  const auto clip = [&](double v) { return std::clamp<int64_t>(static_cast<int64_t>(std::llround(v)), 1, limit); };
  std::vector<int64_t> out(n);
  for (auto& len : out) {
    switch (d) {
      case Dist::uniform: len = uniform(rng); break;
      case Dist::lognormal_tail: len = clip(lognormal(rng)); break;
      case Dist::bimodal: len = clip(coin(rng) ? low(rng) : high(rng)); break;
      case Dist::short_heavy: len = rare(rng) ? long_doc(rng) : std::min<int64_t>(limit, 1 + chat(rng)); break;
    }
  }
  return out;
}

host::ContextPtr packer_context() {
  auto context = host::make_context();
  host::check(frugal_context_load_plugin(context.get(), builtin_path("packer_seq").c_str()));
  return context;
}

host::OptionsPtr packer_options(const PackerConfig& config) {
  auto options = host::make_options();
  host::check(frugal_options_set_int(options.get(), "max_len", config.max_len));
  host::check(frugal_options_set_int(options.get(), "max_per_pack", config.max_per_pack));
  if (config.algo != nullptr) host::check(frugal_options_set_string(options.get(), "algo", config.algo));
  if (config.overlong != nullptr) host::check(frugal_options_set_string(options.get(), "overlong", config.overlong));
  return options;
}

host::PackerPtr make_seq_packer(frugal_context* context, const PackerConfig& config) {
  auto options = packer_options(config);
  return host::make_packer(context, "packer_seq", options.get());
}

host::PackPlanPtr pack(frugal_packer* packer, const std::vector<int64_t>& lengths) {
  frugal_pack_plan* plan = nullptr;
  host::check(frugal_packer_pack(packer, lengths.data(), lengths.size(), &plan));
  return host::PackPlanPtr(plan);
}

frugal_pack_stats stats_of(const frugal_pack_plan* plan) {
  frugal_pack_stats stats{};
  stats.struct_size = sizeof(stats);
  host::check(frugal_pack_plan_stats(plan, &stats));
  return stats;
}

frugal_pack_plan_view view_of(const frugal_pack_plan* plan) {
  frugal_pack_plan_view view{};
  view.struct_size = sizeof(view);
  host::check(frugal_pack_plan_view_get(plan, &view));
  return view;
}

std::vector<Unit> units_of(const frugal_pack_plan* plan) {
  const auto view = view_of(plan);
  std::vector<Unit> units;
  for (std::size_t p = 0; p < view.pack_count; ++p)
    for (auto k = view.pack_offsets[p]; k < view.pack_offsets[p + 1]; ++k) {
      const auto u = static_cast<std::size_t>(k);
      units.push_back({static_cast<int64_t>(p), view.sequence_ids[u], view.token_offsets[u], view.unit_lengths[u]});
    }
  return units;
}

GatherArrays::GatherArrays(const std::vector<int64_t>& lengths) {
  offsets.reserve(lengths.size() + 1);
  offsets.push_back(0);
  for (const int64_t len : lengths) offsets.push_back(offsets.back() + len);
  tokens.resize(static_cast<std::size_t>(offsets.back()));
  labels.resize(tokens.size());
  for (std::size_t s = 0; s < lengths.size(); ++s)
    for (int64_t i = 0; i < lengths[s]; ++i) {
      const auto at = static_cast<std::size_t>(offsets[s] + i);
      tokens[at] = token_at(static_cast<int64_t>(s), i);
      labels[at] = label_at(static_cast<int64_t>(s), i);
    }
}

namespace {

constexpr int64_t kPad = -1;
constexpr int64_t kIgnore = -100;

// Index of the first position where `row` differs from `expected`, or -1.
template <typename T>
int64_t first_mismatch(const std::vector<T>& row, const std::vector<T>& expected) {
  for (std::size_t i = 0; i < row.size(); ++i)
    if (row[i] != expected[i]) return static_cast<int64_t>(i);
  return -1;
}

void check_mask(const frugal_pack_plan* plan, std::size_t p, const std::vector<int64_t>& unit_of_row,
                const std::vector<int64_t>& sequence_of_row, std::size_t side) {
  std::vector<uint8_t> mask(side * side, 7);
  host::check(frugal_pack_plan_mask(plan, p, mask.data(), side));
  int64_t bad = -1;
  int64_t joins = 0;
  for (std::size_t q = 0; q < side && bad < 0; ++q) {
    const int64_t uq = q < unit_of_row.size() ? unit_of_row[q] : -1;
    for (std::size_t k = 0; k < side; ++k) {
      const int64_t uk = k < unit_of_row.size() ? unit_of_row[k] : -1;
      // Real query: same unit, causal. Padding query: only itself.
      const bool expected = uq >= 0 ? (uq == uk && k <= q) : k == q;
      const uint8_t value = mask[q * side + k];
      if (value == 1 && q != k && uq >= 0 && uk >= 0 && sequence_of_row[q] != sequence_of_row[k]) ++joins;
      if (value != (expected ? 1 : 0)) {
        bad = static_cast<int64_t>(q * side + k);
        break;
      }
    }
  }
  INFO("pack " << p << " side " << side << " first wrong mask entry (q*side+k) " << bad);
  CHECK(bad == -1);
  CHECK(joins == 0);
}

// Martello and Toth's L2 lower bound for bin packing, written out from its
// definition: for each threshold k in [0, C/2], units over C - k need a row
// each, units in (C/2, C - k] too, and units in [k, C/2] can use only what
// those leave free: L(k) = |J1| + |J2| + max(0, ceil((S3 - (|J2| C - S2)) / C)).
// The maximum is reached at k = 0 or k = some unit's length.
int64_t martello_toth_l2(const std::vector<int64_t>& lengths, int64_t capacity) {
  std::set<int64_t> thresholds{0};
  for (const int64_t len : lengths)
    if (2 * len <= capacity) thresholds.insert(len);
  int64_t best = 0;
  for (const int64_t k : thresholds) {
    int64_t j1 = 0, j2 = 0, s2 = 0, s3 = 0;
    for (const int64_t len : lengths) {
      if (len > capacity - k) {
        ++j1;
      } else if (2 * len > capacity) {
        ++j2;
        s2 += len;
      } else if (len >= k) {
        s3 += len;
      }
    }
    const int64_t overflow = s3 - (j2 * capacity - s2);
    best = std::max(best, j1 + j2 + (overflow > 0 ? (overflow + capacity - 1) / capacity : 0));
  }
  return best;
}

}  // namespace

void check_plan(const frugal_pack_plan* plan, const PackerConfig& config, const std::vector<int64_t>& sequence_lengths,
                const GatherArrays* gather_arrays) {
  const auto view = view_of(plan);
  const auto stats = stats_of(plan);
  const int64_t max_len = config.max_len;
  const auto row = static_cast<std::size_t>(max_len);
  REQUIRE(view.pack_offsets[0] == 0);
  REQUIRE(view.pack_offsets[view.pack_count] == static_cast<int64_t>(view.unit_count));
  REQUIRE(stats.packs == static_cast<int64_t>(view.pack_count));
  REQUIRE(stats.units == static_cast<int64_t>(view.unit_count));

  std::optional<GatherArrays> own_arrays;
  if (gather_arrays == nullptr) gather_arrays = &own_arrays.emplace(sequence_lengths);
  const GatherArrays& arrays = *gather_arrays;
  int64_t real = 0;
  int64_t over_half = 0;
  std::set<int64_t> sequences;
  std::vector<int64_t> unit_lengths;
  // The mask costs side^2: check it on every pack of small rows, otherwise
  // on the first pack (when rows are moderate) and the emptiest one.
  std::size_t emptiest = 0;
  for (std::size_t p = 1; p < view.pack_count; ++p)
    if (view.pack_tokens[p] < view.pack_tokens[emptiest]) emptiest = p;

  for (std::size_t p = 0; p < view.pack_count; ++p) {
    INFO("pack " << p);
    const auto first = static_cast<std::size_t>(view.pack_offsets[p]);
    const auto end = static_cast<std::size_t>(view.pack_offsets[p + 1]);
    REQUIRE(end > first);
    const std::size_t k = end - first;
    if (config.max_per_pack > 0) REQUIRE(static_cast<int64_t>(k) <= config.max_per_pack);

    // Expected rows, built from the view alone.
    int64_t tokens = 0;
    int64_t longest = 0;
    std::vector<int32_t> cu{0};
    std::vector<int64_t> positions(row, 0), unit_of_row, sequence_of_row;
    std::vector<int32_t> segments(row, 0);
    std::vector<int64_t> out_tokens(row, kPad), out_labels(row, kIgnore), raw_labels(row, kIgnore);
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t u = first + j;
      const int64_t len = view.unit_lengths[u];
      const int64_t seq = view.sequence_ids[u];
      const int64_t off = view.token_offsets[u];
      // Plain comparisons, one assertion on failure: these run per unit.
      const bool unit_ok = len >= 1 && len <= max_len && seq >= 0 &&
                           static_cast<std::size_t>(seq) < sequence_lengths.size() && off >= 0 &&
                           off + len <= sequence_lengths[static_cast<std::size_t>(seq)] && tokens + len <= max_len;
      if (!unit_ok) {
        INFO("unit " << j << ": sequence " << seq << " offset " << off << " length " << len << " after " << tokens
                     << " tokens, max_len " << max_len);
        REQUIRE(unit_ok);
      }
      for (int64_t i = 0; i < len; ++i) {
        const auto t = static_cast<std::size_t>(tokens + i);
        positions[t] = i;
        segments[t] = static_cast<int32_t>(j + 1);
        unit_of_row.push_back(static_cast<int64_t>(j));
        sequence_of_row.push_back(seq);
        out_tokens[t] = token_at(seq, off + i);
        out_labels[t] = i == 0 ? kIgnore : label_at(seq, off + i);
        raw_labels[t] = token_at(seq, off + i);
      }
      tokens += len;
      longest = std::max(longest, len);
      cu.push_back(static_cast<int32_t>(tokens));
      sequences.insert(seq);
      if (2 * len > max_len) ++over_half;
    }
    REQUIRE(view.pack_tokens[p] == tokens);
    unit_lengths.insert(unit_lengths.end(), view.unit_lengths + first, view.unit_lengths + end);
    real += tokens;

    // cu_seqlens: exactly units + 1 entries fit.
    std::vector<int32_t> got_cu(k + 1, -1);
    std::size_t written = 0;
    int32_t max_seqlen = -1;
    host::check(frugal_pack_plan_varlen(plan, p, got_cu.data(), got_cu.size(), &written, &max_seqlen));
    CHECK(written == k + 1);
    CHECK(got_cu == cu);
    CHECK(max_seqlen == longest);

    std::vector<int64_t> got_positions(row, -5);
    host::check(frugal_pack_plan_position_ids(plan, p, got_positions.data(), row));
    INFO("first wrong position id " << first_mismatch(got_positions, positions));
    CHECK(got_positions == positions);

    std::vector<int32_t> got_segments(row, -5);
    host::check(frugal_pack_plan_segment_ids(plan, p, got_segments.data(), row));
    INFO("first wrong segment id " << first_mismatch(got_segments, segments));
    CHECK(got_segments == segments);

    // Gather with explicit labels and the first label of each unit masked.
    std::vector<int64_t> got_tokens(row, -9), got_labels(row, -9);
    frugal_pack_gather_args args{};
    args.struct_size = sizeof(args);
    args.tokens = arrays.tokens.data();
    args.sequence_offsets = arrays.offsets.data();
    args.sequence_count = sequence_lengths.size();
    args.labels = arrays.labels.data();
    args.out_tokens = got_tokens.data();
    args.out_labels = got_labels.data();
    args.out_length = row;
    args.pad_token = kPad;
    args.ignore_index = kIgnore;
    args.mask_first_label = 1;
    host::check(frugal_pack_plan_gather(plan, p, &args));
    INFO("first wrong token " << first_mismatch(got_tokens, out_tokens));
    CHECK(got_tokens == out_tokens);
    INFO("first wrong label " << first_mismatch(got_labels, out_labels));
    CHECK(got_labels == out_labels);

    // Labels NULL (labels are the tokens), nothing masked.
    std::fill(got_labels.begin(), got_labels.end(), -9);
    args.labels = nullptr;
    args.mask_first_label = 0;
    host::check(frugal_pack_plan_gather(plan, p, &args));
    INFO("first wrong unmasked label " << first_mismatch(got_labels, raw_labels));
    CHECK(got_labels == raw_labels);

    if (max_len <= 64 || p == emptiest || (p == 0 && max_len <= 512)) {
      const std::size_t side = max_len <= 64 ? row : static_cast<std::size_t>(tokens) + 3;
      check_mask(plan, p, unit_of_row, sequence_of_row, side);
    }
  }

  // Statistics, from the definitions in packer.h.
  const auto units = static_cast<int64_t>(view.unit_count);
  const auto packs = static_cast<int64_t>(view.pack_count);
  CHECK(stats.real_tokens == real);
  CHECK(stats.max_len == max_len);
  CHECK(stats.sequences == static_cast<int64_t>(sequences.size()));
  CHECK(stats.lower_bound == (real + max_len - 1) / max_len);
  // The tight bound is at least every bound packer.h names; without
  // max_per_pack it is exactly L2 (which includes L1 and the count of units
  // over half a row). It must stay a valid bound: no plan beats it.
  const int64_t l2 = martello_toth_l2(unit_lengths, max_len);
  CHECK(l2 >= over_half);
  CHECK(stats.lower_bound_tight >= std::max(stats.lower_bound, l2));
  if (config.max_per_pack > 0)
    CHECK(stats.lower_bound_tight >= (units + config.max_per_pack - 1) / config.max_per_pack);
  else
    CHECK(stats.lower_bound_tight == std::max(stats.lower_bound, l2));
  CHECK(stats.packs >= stats.lower_bound_tight);
  const double efficiency = double(real) / (double(packs) * double(max_len));
  CHECK(stats.efficiency == Approx(efficiency).epsilon(1e-12));
  CHECK(stats.padding_after == Approx(1.0 - efficiency).margin(1e-12));
  CHECK(stats.padding_before == Approx(1.0 - double(real) / (double(units) * double(max_len))).margin(1e-12));
  CHECK(stats.speedup == Approx(double(units) / double(packs)).epsilon(1e-12));
  REQUIRE(stats.method != nullptr);
  // "best" names the candidate that won; every other algorithm names itself.
  if (config.algo != nullptr && std::string(config.algo) == "best") {
    CHECK_THAT(std::string(stats.method), Catch::Matchers::Equals("refined") || Catch::Matchers::Equals("bfd") ||
                                              Catch::Matchers::Equals("ffd") || Catch::Matchers::Equals("lpfhp") ||
                                              Catch::Matchers::Equals("spfhp"));
  } else if (config.algo != nullptr) {
    CHECK(std::string(stats.method) == config.algo);
  }
}

void check_coverage(const std::vector<Unit>& units, const std::vector<int64_t>& lengths, const PackerConfig& config) {
  std::map<int64_t, std::vector<Unit>> by_sequence;
  for (const auto& u : units) {
    if (u.sequence < 0 || static_cast<std::size_t>(u.sequence) >= lengths.size()) {
      INFO("unit of sequence " << u.sequence << " with " << lengths.size() << " sequences");
      REQUIRE(false);
    }
    by_sequence[u.sequence].push_back(u);
  }
  REQUIRE(by_sequence.size() == lengths.size());  // every sequence has a unit
  const std::string policy = config.overlong != nullptr ? config.overlong : "error";
  // Plain comparisons per sequence, one assertion for the first problem.
  std::string problem;
  for (const auto& [sequence, pieces_in_plan] : by_sequence) {
    auto pieces = pieces_in_plan;
    std::sort(pieces.begin(), pieces.end(), [](const Unit& a, const Unit& b) { return a.offset < b.offset; });
    const int64_t len = lengths[static_cast<std::size_t>(sequence)];
    const std::string where = "sequence " + std::to_string(sequence) + " of length " + std::to_string(len) + ": ";
    if (policy != "split" || len <= config.max_len) {
      // Placed exactly once, from its first token.
      if (pieces.size() != 1)
        problem = where + std::to_string(pieces.size()) + " units";
      else if (pieces[0].offset != 0 || pieces[0].length != std::min(len, config.max_len))
        problem = where + "unit at offset " + std::to_string(pieces[0].offset) + " of length " +
                  std::to_string(pieces[0].length);
    } else {
      // Split: ceil(len / max_len) pieces covering [0, len) contiguously.
      if (static_cast<int64_t>(pieces.size()) != (len + config.max_len - 1) / config.max_len)
        problem = where + std::to_string(pieces.size()) + " pieces";
      int64_t next = 0;
      for (const auto& piece : pieces) {
        if (piece.offset != next || piece.length > config.max_len)
          problem = where + "piece at offset " + std::to_string(piece.offset) + " of length " +
                    std::to_string(piece.length) + " where " + std::to_string(next) + " was next";
        next = piece.offset + piece.length;
      }
      if (next != len) problem = where + "pieces end at " + std::to_string(next);
    }
    if (!problem.empty()) break;
  }
  INFO(problem);
  CHECK(problem.empty());
}

bool same_views(const frugal_pack_plan_view& a, const frugal_pack_plan_view& b) {
  if (a.pack_count != b.pack_count || a.unit_count != b.unit_count) return false;
  const auto same = [](const int64_t* x, const int64_t* y, std::size_t n) { return std::equal(x, x + n, y); };
  return same(a.pack_offsets, b.pack_offsets, a.pack_count + 1) && same(a.sequence_ids, b.sequence_ids, a.unit_count) &&
         same(a.token_offsets, b.token_offsets, a.unit_count) && same(a.unit_lengths, b.unit_lengths, a.unit_count) &&
         same(a.pack_tokens, b.pack_tokens, a.pack_count);
}

}  // namespace frugal::test
