// The packer C API with the packer_seq plugin, loaded from disk: property
// tests over random length distributions (every algorithm, with and without
// max_per_pack, several row lengths), the overlong policies, a small plan
// worked out by hand, determinism, lifetimes, histogram packing and the
// size-honouring stats/view structs. Every per-pack format is checked
// against the plan's own assignment by test_packer_common.cpp.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "test_helpers.hpp"
#include "test_packer_common.hpp"

using namespace frugal;
using namespace frugal::test;

TEST_CASE("every algorithm turns random length distributions into valid plans whose formats agree") {
  auto context = packer_context();
  const char* algo = GENERATE(from_range(std::begin(kPackerAlgos), std::end(kPackerAlgos)));
  const int64_t max_len = GENERATE(64, 512, 2048);
  const int64_t max_per_pack = GENERATE(0, 3);
  const Dist dist = GENERATE(from_range(std::begin(kDists), std::end(kDists)));
  const PackerConfig config{max_len, max_per_pack, algo, nullptr};
  auto packer = make_seq_packer(context.get(), config);
  for (const uint64_t seed : {11u, 29u}) {
    INFO(algo << " max_len " << max_len << " max_per_pack " << max_per_pack << " " << dist_name(dist) << " seed "
              << seed);
    const auto lengths = make_lengths(dist, 160, max_len, max_len, seed);
    auto plan = pack(packer.get(), lengths);
    check_coverage(units_of(plan.get()), lengths, config);
    check_plan(plan.get(), config, lengths);
    // Without truncation or splitting nothing is cut or split.
    const auto stats = stats_of(plan.get());
    CHECK(stats.sequences == static_cast<int64_t>(lengths.size()));
    CHECK(stats.units == static_cast<int64_t>(lengths.size()));
    CHECK(stats.real_tokens == std::accumulate(lengths.begin(), lengths.end(), int64_t{0}));
    CHECK(stats.truncated_sequences == 0);
    CHECK(stats.truncated_tokens == 0);
    CHECK(stats.split_sequences == 0);
  }
}

TEST_CASE("overlong = split covers every token exactly once, and truncate keeps each sequence's first max_len tokens") {
  auto context = packer_context();
  const char* overlong = GENERATE("split", "truncate");
  const char* algo = GENERATE(from_range(std::begin(kPackerAlgos), std::end(kPackerAlgos)));
  const int64_t max_len = GENERATE(64, 512);
  const int64_t max_per_pack = GENERATE(0, 3);
  const Dist dist = GENERATE(Dist::uniform, Dist::lognormal_tail, Dist::short_heavy);
  const PackerConfig config{max_len, max_per_pack, algo, overlong};
  auto packer = make_seq_packer(context.get(), config);
  INFO(overlong << " " << algo << " max_len " << max_len << " max_per_pack " << max_per_pack << " " << dist_name(dist));
  // Up to three rows long, so some sequences need 2 or 3 pieces.
  auto lengths = make_lengths(dist, 120, max_len, 3 * max_len, 5);
  int64_t overlong_count = 0, cut = 0, kept = 0, pieces = 0;
  for (const int64_t len : lengths) {
    if (len > max_len) {
      ++overlong_count;
      cut += len - max_len;
    }
    kept += std::min(len, max_len);
    pieces += (len + max_len - 1) / max_len;
  }
  REQUIRE(overlong_count > 0);  // the distribution must exercise the policy

  auto plan = pack(packer.get(), lengths);
  check_coverage(units_of(plan.get()), lengths, config);
  check_plan(plan.get(), config, lengths);
  const auto stats = stats_of(plan.get());
  CHECK(stats.sequences == static_cast<int64_t>(lengths.size()));
  if (std::string(overlong) == "split") {
    CHECK(stats.units == pieces);
    CHECK(stats.real_tokens == std::accumulate(lengths.begin(), lengths.end(), int64_t{0}));
    CHECK(stats.split_sequences == overlong_count);
    CHECK(stats.truncated_sequences == 0);
    CHECK(stats.truncated_tokens == 0);
  } else {
    CHECK(stats.units == static_cast<int64_t>(lengths.size()));
    CHECK(stats.real_tokens == kept);
    CHECK(stats.truncated_sequences == overlong_count);
    CHECK(stats.truncated_tokens == cut);
    CHECK(stats.split_sequences == 0);
  }
}

TEST_CASE("the overlong counters include the first sequence when it is the one cut") {
  // Sequence 0 overlong: its cut (truncate) or split must be counted like
  // any other sequence's.
  auto context = packer_context();
  const std::vector<int64_t> lengths{100, 10, 90};  // rows of 64: sequences 0 and 2 are overlong
  auto truncating = make_seq_packer(context.get(), {64, 0, "ffd", "truncate"});
  const auto truncated = stats_of(pack(truncating.get(), lengths).get());
  CHECK(truncated.truncated_sequences == 2);
  CHECK(truncated.truncated_tokens == 36 + 26);
  auto splitting = make_seq_packer(context.get(), {64, 0, "ffd", "split"});
  const auto split = stats_of(pack(splitting.get(), lengths).get());
  CHECK(split.units == 5);
  CHECK(split.split_sequences == 2);
}

TEST_CASE("a split sequence's pieces gather the right slices of the caller's tokens") {
  // 10 tokens into rows of 4: pieces [0,4), [4,8), [8,10) in some packs.
  auto context = packer_context();
  const PackerConfig config{4, 0, "ffd", "split"};
  auto packer = make_seq_packer(context.get(), config);
  const std::vector<int64_t> lengths{10};
  auto plan = pack(packer.get(), lengths);
  const auto units = units_of(plan.get());
  REQUIRE(units.size() == 3);
  check_coverage(units, lengths, config);
  check_plan(plan.get(), config, lengths);
  CHECK(stats_of(plan.get()).packs == 3);  // two full pieces cannot share a row
}

TEST_CASE("two sequences in one row: every format written out by hand") {
  auto context = packer_context();
  auto packer = make_seq_packer(context.get(), {6, 0, "ffd", nullptr});
  auto plan = pack(packer.get(), {3, 2});
  const auto view = view_of(plan.get());
  REQUIRE(view.pack_count == 1);
  REQUIRE(view.unit_count == 2);
  // The strategy picks the row order; the expected rows follow it.
  const bool three_first = view.sequence_ids[0] == 0;
  CHECK(view.sequence_ids[three_first ? 1 : 0] == (three_first ? 1 : 0));
  CHECK(view.pack_tokens[0] == 5);

  int32_t cu[3] = {-1, -1, -1};
  size_t written = 0;
  int32_t longest = 0;
  host::check(frugal_pack_plan_varlen(plan.get(), 0, cu, 3, &written, &longest));
  CHECK(written == 3);
  CHECK(longest == 3);
  CHECK(std::vector<int32_t>(cu, cu + 3) ==
        (three_first ? std::vector<int32_t>{0, 3, 5} : std::vector<int32_t>{0, 2, 5}));
  // written and max_seqlen may be NULL.
  host::check(frugal_pack_plan_varlen(plan.get(), 0, cu, 3, nullptr, nullptr));

  std::vector<int64_t> positions(6, -1);
  host::check(frugal_pack_plan_position_ids(plan.get(), 0, positions.data(), 6));
  CHECK(positions == (three_first ? std::vector<int64_t>{0, 1, 2, 0, 1, 0} : std::vector<int64_t>{0, 1, 0, 1, 2, 0}));

  std::vector<int32_t> segments(6, -1);
  host::check(frugal_pack_plan_segment_ids(plan.get(), 0, segments.data(), 6));
  CHECK(segments == (three_first ? std::vector<int32_t>{1, 1, 1, 2, 2, 0} : std::vector<int32_t>{1, 1, 2, 2, 2, 0}));

  std::vector<uint8_t> mask(36, 9);
  host::check(frugal_pack_plan_mask(plan.get(), 0, mask.data(), 6));
  const std::vector<uint8_t> mask_three_first{
      1, 0, 0, 0, 0, 0,  //
      1, 1, 0, 0, 0, 0,  //
      1, 1, 1, 0, 0, 0,  //
      0, 0, 0, 1, 0, 0,  // second sequence starts: sees nothing of the first
      0, 0, 0, 1, 1, 0,  //
      0, 0, 0, 0, 0, 1,  // padding sees only itself
  };
  const std::vector<uint8_t> mask_two_first{
      1, 0, 0, 0, 0, 0,  //
      1, 1, 0, 0, 0, 0,  //
      0, 0, 1, 0, 0, 0,  //
      0, 0, 1, 1, 0, 0,  //
      0, 0, 1, 1, 1, 0,  //
      0, 0, 0, 0, 0, 1,  //
  };
  CHECK(mask == (three_first ? mask_three_first : mask_two_first));

  // Gather: sequence 0 = 10 11 12, sequence 1 = 20 21; labels 100 higher.
  const std::vector<int64_t> tokens{10, 11, 12, 20, 21}, labels{110, 111, 112, 120, 121}, offsets{0, 3, 5};
  std::vector<int64_t> out_tokens(6, -1), out_labels(6, -1);
  frugal_pack_gather_args args{};
  args.struct_size = sizeof(args);
  args.tokens = tokens.data();
  args.sequence_offsets = offsets.data();
  args.sequence_count = 2;
  args.labels = labels.data();
  args.out_tokens = out_tokens.data();
  args.out_labels = out_labels.data();
  args.out_length = 6;
  args.pad_token = 0;
  args.ignore_index = -100;
  args.mask_first_label = 1;
  host::check(frugal_pack_plan_gather(plan.get(), 0, &args));
  CHECK(out_tokens ==
        (three_first ? std::vector<int64_t>{10, 11, 12, 20, 21, 0} : std::vector<int64_t>{20, 21, 10, 11, 12, 0}));
  CHECK(out_labels == (three_first ? std::vector<int64_t>{-100, 111, 112, -100, 121, -100}
                                   : std::vector<int64_t>{-100, 121, -100, 111, 112, -100}));
  args.mask_first_label = 0;
  host::check(frugal_pack_plan_gather(plan.get(), 0, &args));
  CHECK(out_labels == (three_first ? std::vector<int64_t>{110, 111, 112, 120, 121, -100}
                                   : std::vector<int64_t>{120, 121, 110, 111, 112, -100}));
  // out_labels NULL: only the tokens are written.
  std::fill(out_tokens.begin(), out_tokens.end(), -1);
  args.out_labels = nullptr;
  host::check(frugal_pack_plan_gather(plan.get(), 0, &args));
  CHECK(out_tokens[5] == 0);
  CHECK(out_tokens[0] == (three_first ? 10 : 20));

  const auto stats = stats_of(plan.get());
  CHECK(stats.efficiency == Approx(5.0 / 6.0));
  CHECK(stats.padding_before == Approx(1.0 - 5.0 / 12.0));
  CHECK(stats.speedup == Approx(2.0));
  CHECK(stats.lower_bound == 1);
  CHECK(stats.lower_bound_tight == 1);  // only the 3-token unit is not over half of 6
  CHECK(std::string(stats.method) == "ffd");
}

TEST_CASE("rows longer than the pack are padded: position 0, segment 0, pad token, own-diagonal mask") {
  auto context = packer_context();
  auto packer = make_seq_packer(context.get(), {4, 0, "bfd", nullptr});
  auto plan = pack(packer.get(), {4});
  // A row of 7 for a pack of max_len 4 (e.g. a batch padded to a common length).
  std::vector<int64_t> positions(7, -1);
  host::check(frugal_pack_plan_position_ids(plan.get(), 0, positions.data(), 7));
  CHECK(positions == std::vector<int64_t>{0, 1, 2, 3, 0, 0, 0});
  std::vector<int32_t> segments(7, -1);
  host::check(frugal_pack_plan_segment_ids(plan.get(), 0, segments.data(), 7));
  CHECK(segments == std::vector<int32_t>{1, 1, 1, 1, 0, 0, 0});
  std::vector<uint8_t> mask(49, 9);
  host::check(frugal_pack_plan_mask(plan.get(), 0, mask.data(), 7));
  for (std::size_t q = 4; q < 7; ++q)
    for (std::size_t k = 0; k < 7; ++k) CHECK(mask[q * 7 + k] == (k == q ? 1 : 0));
  for (std::size_t q = 0; q < 4; ++q)
    for (std::size_t k = 4; k < 7; ++k) CHECK(mask[q * 7 + k] == 0);  // no real token sees padding
}

TEST_CASE("the same input and seed give identical plans, across packers and repeated calls") {
  auto context = packer_context();
  const char* algo = GENERATE(from_range(std::begin(kPackerAlgos), std::end(kPackerAlgos)));
  PackerConfig config{512, 3, algo, "split"};
  auto options = packer_options(config);
  host::check(frugal_options_set_int(options.get(), "seed", 1234));
  auto first = host::make_packer(context.get(), "packer_seq", options.get());
  auto second = host::make_packer(context.get(), "packer_seq", options.get());
  const auto lengths = make_lengths(Dist::lognormal_tail, 400, 512, 1200, 77);
  auto a = pack(first.get(), lengths);
  auto b = pack(first.get(), lengths);
  auto c = pack(second.get(), lengths);
  CHECK(same_views(view_of(a.get()), view_of(b.get())));
  CHECK(same_views(view_of(a.get()), view_of(c.get())));
  // Control: the comparison can fail (a different input gives another plan).
  auto other = pack(first.get(), make_lengths(Dist::lognormal_tail, 400, 512, 1200, 78));
  CHECK_FALSE(same_views(view_of(a.get()), view_of(other.get())));
}

TEST_CASE("packing concurrently on one packer gives every thread the same plan") {
  // packer_seq declares FRUGAL_STRATEGY_THREAD_SAFE, so this is allowed.
  auto context = packer_context();
  auto packer = make_seq_packer(context.get(), {256, 0, "lpfhp", nullptr});
  const auto lengths = make_lengths(Dist::bimodal, 2000, 256, 256, 3);
  auto reference = pack(packer.get(), lengths);
  std::vector<host::PackPlanPtr> plans(4);
  std::vector<std::thread> threads;
  for (auto& plan : plans) threads.emplace_back([&] { plan = pack(packer.get(), lengths); });
  for (auto& t : threads) t.join();
  for (const auto& plan : plans) CHECK(same_views(view_of(plan.get()), view_of(reference.get())));
}

TEST_CASE("a packer works after its context is destroyed, and its plans after the packer is destroyed") {
  auto context = packer_context();
  const PackerConfig config{128, 0, "spfhp", nullptr};
  auto packer = make_seq_packer(context.get(), config);
  context.reset();  // "It does not reference the context afterwards."
  const auto lengths = make_lengths(Dist::uniform, 50, 128, 128, 9);
  auto plan = pack(packer.get(), lengths);
  packer.reset();  // plans stay valid
  check_coverage(units_of(plan.get()), lengths, config);
  check_plan(plan.get(), config, lengths);
  CHECK(std::string(stats_of(plan.get()).method) == "spfhp");
}

TEST_CASE("histogram packing numbers sequences in bin order") {
  auto context = packer_context();
  const PackerConfig config{16, 0, "ffd", nullptr};
  auto packer = make_seq_packer(context.get(), config);
  // A length may repeat across bins and a count may be 0.
  const std::vector<int64_t> bin_lengths{5, 9, 2, 9, 16};
  const std::vector<int64_t> counts{2, 1, 0, 3, 1};
  frugal_pack_plan* raw = nullptr;
  host::check(frugal_packer_pack_histogram(packer.get(), bin_lengths.data(), counts.data(), 5, &raw));
  host::PackPlanPtr plan(raw);
  const std::vector<int64_t> expanded{5, 5, 9, 9, 9, 9, 16};  // ids 0..6
  check_coverage(units_of(plan.get()), expanded, config);     // each id has its bin's length
  check_plan(plan.get(), config, expanded);
}

TEST_CASE("histogram packing gives the same stats as packing the expanded lengths") {
  auto context = packer_context();
  const char* algo = GENERATE(from_range(std::begin(kPackerAlgos), std::end(kPackerAlgos)));
  const Dist dist = GENERATE(from_range(std::begin(kDists), std::end(kDists)));
  const int64_t max_per_pack = GENERATE(0, 3);
  const char* overlong = GENERATE("error", "split");
  const PackerConfig config{256, max_per_pack, algo, overlong};
  auto packer = make_seq_packer(context.get(), config);
  INFO(algo << " " << dist_name(dist) << " max_per_pack " << max_per_pack << " " << overlong);
  // Bins of distinct lengths, in decreasing order, counts from the distribution.
  const int64_t limit = std::string(overlong) == "split" ? 700 : 256;
  const auto draws = make_lengths(dist, 800, 256, limit, 21);
  std::vector<int64_t> counts_by_length(static_cast<std::size_t>(limit) + 1, 0);
  for (const int64_t len : draws) ++counts_by_length[static_cast<std::size_t>(len)];
  std::vector<int64_t> bin_lengths, counts, expanded;
  for (int64_t len = limit; len >= 1; --len) {
    const int64_t c = counts_by_length[static_cast<std::size_t>(len)];
    if (c == 0) continue;
    bin_lengths.push_back(len);
    counts.push_back(c);
    expanded.insert(expanded.end(), static_cast<std::size_t>(c), len);
  }
  frugal_pack_plan* raw = nullptr;
  host::check(frugal_packer_pack_histogram(packer.get(), bin_lengths.data(), counts.data(), bin_lengths.size(), &raw));
  host::PackPlanPtr from_histogram(raw);
  auto from_lengths = pack(packer.get(), expanded);
  // The formats are the property tests' job; here: ids in bin order, same stats.
  check_coverage(units_of(from_histogram.get()), expanded, config);

  const auto h = stats_of(from_histogram.get());
  const auto l = stats_of(from_lengths.get());
  CHECK(h.packs == l.packs);
  CHECK(h.units == l.units);
  CHECK(h.sequences == l.sequences);
  CHECK(h.real_tokens == l.real_tokens);
  CHECK(h.max_len == l.max_len);
  CHECK(h.lower_bound == l.lower_bound);
  CHECK(h.lower_bound_tight == l.lower_bound_tight);
  CHECK(h.efficiency == l.efficiency);
  CHECK(h.padding_before == l.padding_before);
  CHECK(h.padding_after == l.padding_after);
  CHECK(h.speedup == l.speedup);
  CHECK(h.truncated_sequences == l.truncated_sequences);
  CHECK(h.truncated_tokens == l.truncated_tokens);
  CHECK(h.split_sequences == l.split_sequences);
  CHECK(std::string(h.method) == l.method);
}

TEST_CASE("stats and view honour a smaller caller struct_size") {
  // An older caller's struct ends earlier: the core writes only that much.
  auto context = packer_context();
  auto packer = make_seq_packer(context.get(), {8, 0, "ffd", nullptr});
  auto plan = pack(packer.get(), {3, 4, 8});

  frugal_pack_stats stats;
  std::memset(&stats, 0x5A, sizeof(stats));
  stats.struct_size = offsetof(frugal_pack_stats, efficiency);
  host::check(frugal_pack_plan_stats(plan.get(), &stats));
  CHECK(stats.struct_size == offsetof(frugal_pack_stats, efficiency));
  CHECK(stats.packs == 2);
  CHECK(stats.real_tokens == 15);
  CHECK(stats.lower_bound_tight == 2);
  frugal_pack_stats untouched;
  std::memset(&untouched, 0x5A, sizeof(untouched));
  CHECK(std::memcmp(&stats.efficiency, &untouched.efficiency,
                    sizeof(frugal_pack_stats) - offsetof(frugal_pack_stats, efficiency)) == 0);

  frugal_pack_plan_view view;
  std::memset(&view, 0x5A, sizeof(view));
  view.struct_size = offsetof(frugal_pack_plan_view, pack_offsets);
  host::check(frugal_pack_plan_view_get(plan.get(), &view));
  CHECK(view.pack_count == 2);
  CHECK(view.unit_count == 3);
  frugal_pack_plan_view untouched_view;
  std::memset(&untouched_view, 0x5A, sizeof(untouched_view));
  CHECK(view.pack_offsets == untouched_view.pack_offsets);
}
