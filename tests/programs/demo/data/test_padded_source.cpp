// The baseline's padded batches, the eval batch, cursors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "batch_source.hpp"
#include "data_support.hpp"

using namespace frugal_demo;
using demo_data_test::bytes_of;
using demo_data_test::check_rows;

TEST_CASE("padded source: one sequence per row, exact tokens, labels, positions, segments", "[demo][data]") {
  Corpus c;
  c.train = {bytes_of("abc"), bytes_of("de"), bytes_of("fghij")};
  auto source = make_padded_source(c, 2, 6, 5);
  BatchAccounting acc;
  const Batch b = source->next(&acc);
  REQUIRE(b.rows == 2);
  REQUIRE(b.seq == 6);
  const std::vector<std::size_t> ids = source->last_sequences();
  REQUIRE(ids.size() == 2);
  CHECK(check_rows(b, c, ids) == 2);
  // Spelled out for the first row, whichever sequence it got.
  const auto& s = c.train[ids[0]];
  std::vector<std::int32_t> labels(6, -100), positions(6, 0), segments(6, -1);
  for (std::size_t j = 0; j < s.size(); ++j) {
    positions[j] = static_cast<std::int32_t>(j);
    segments[j] = 0;
    if (j + 1 < s.size()) labels[j] = s[j + 1];
  }
  CHECK(std::vector<std::int32_t>(b.labels.begin(), b.labels.begin() + 6) == labels);
  CHECK(std::vector<std::int32_t>(b.positions.begin(), b.positions.begin() + 6) == positions);
  CHECK(std::vector<std::int32_t>(b.segments.begin(), b.segments.begin() + 6) == segments);
  CHECK(acc.slots == 12);
  CHECK(acc.sequences == 2);
  CHECK(acc.real_tokens == c.train[ids[0]].size() + c.train[ids[1]].size());
  CHECK(source->describe() == "padded: one sequence per row");
}

TEST_CASE("padded source: each epoch visits every sequence once, in a seeded order", "[demo][data]") {
  const Corpus c = demo_data_test::varied_corpus(60, 16);
  auto a = make_padded_source(c, 4, 16, 1);
  auto b = make_padded_source(c, 4, 16, 1);
  auto other = make_padded_source(c, 4, 16, 2);
  std::vector<std::size_t> epoch0, epoch1, seen_other;
  for (int i = 0; i < 15; ++i) {
    a->next(nullptr);
    b->next(nullptr);
    other->next(nullptr);
    const auto& ids = a->last_sequences();
    epoch0.insert(epoch0.end(), ids.begin(), ids.end());
    CHECK(b->last_sequences() == ids);  // same seed, same batches
    seen_other.insert(seen_other.end(), other->last_sequences().begin(), other->last_sequences().end());
  }
  for (int i = 0; i < 15; ++i) {
    a->next(nullptr);
    epoch1.insert(epoch1.end(), a->last_sequences().begin(), a->last_sequences().end());
  }
  std::vector<std::size_t> all(60);
  std::iota(all.begin(), all.end(), std::size_t{0});
  CHECK(epoch0 != all);         // shuffled
  CHECK(epoch0 != epoch1);      // reshuffled per epoch
  CHECK(epoch0 != seen_other);  // the seed matters
  std::sort(epoch0.begin(), epoch0.end());
  std::sort(epoch1.begin(), epoch1.end());
  CHECK(epoch0 == all);
  CHECK(epoch1 == all);
}

TEST_CASE("padded source: next() after seek(cursor()) repeats the same batches, across epochs", "[demo][data]") {
  const Corpus c = demo_data_test::varied_corpus(23, 16);
  auto source = make_padded_source(c, 4, 16, 9);
  for (int i = 0; i < 5; ++i) source->next(nullptr);  // 20 of 23: the next batch crosses the epoch end
  const std::vector<std::uint8_t> cursor = source->cursor();
  std::vector<Batch> first;
  for (int i = 0; i < 3; ++i) first.push_back(source->next(nullptr));
  auto fresh = make_padded_source(c, 4, 16, 9);
  fresh->seek(cursor);
  source->seek(cursor);
  for (int i = 0; i < 3; ++i) {
    const Batch again = source->next(nullptr);
    const Batch resumed = fresh->next(nullptr);
    CHECK(again.tokens == first[static_cast<std::size_t>(i)].tokens);
    CHECK(again.labels == first[static_cast<std::size_t>(i)].labels);
    CHECK(resumed.tokens == first[static_cast<std::size_t>(i)].tokens);
    CHECK(resumed.segments == first[static_cast<std::size_t>(i)].segments);
  }
}

TEST_CASE("padded source: malformed cursors are refused with a reason", "[demo][data]") {
  const Corpus c = demo_data_test::varied_corpus(10, 8);
  auto source = make_padded_source(c, 2, 8, 1);
  std::vector<std::uint8_t> cursor = source->cursor();
  CHECK_THROWS_WITH(source->seek(std::span(cursor).first(5)),
                    Catch::Contains("batch cursor") && Catch::Contains("5 bytes"));
  auto bad_version = cursor;
  bad_version[0] = 99;
  CHECK_THROWS_WITH(source->seek(bad_version), Catch::Contains("version 99"));
  auto bad_kind = cursor;
  bad_kind[1] = 'P';
  CHECK_THROWS_WITH(source->seek(bad_kind), Catch::Contains("another kind"));
  auto bad_index = cursor;
  bad_index[10] = 200;  // index 200 of 10 sequences
  CHECK_THROWS_WITH(source->seek(bad_index), Catch::Contains("index 200"));
  const Corpus bigger = demo_data_test::varied_corpus(11, 8);
  auto other = make_padded_source(bigger, 2, 8, 1);
  CHECK_THROWS_WITH(other->seek(cursor), Catch::Contains("corpus of 10"));
  CHECK_THROWS_AS(source->seek(std::vector<std::uint8_t>{}), std::runtime_error);
}

TEST_CASE("padded source: a sequence longer than the row is refused", "[demo][data]") {
  Corpus c;
  c.train = {bytes_of("abcdefgh")};
  CHECK_THROWS_WITH(make_padded_source(c, 1, 4, 1), Catch::Contains("8 tokens") && Catch::Contains("row of 4"));
}

TEST_CASE("eval batch: the first eval sequences, padded, same for every caller", "[demo][data]") {
  Corpus c;
  c.train = {bytes_of("zz")};
  c.eval = {bytes_of("abc"), bytes_of("hello"), bytes_of("xy")};
  const Batch b = make_eval_batch(c, 2, 6);
  REQUIRE(b.rows == 2);
  CHECK(b.tokens == std::vector<std::int32_t>{'a', 'b', 'c', 0, 0, 0, 'h', 'e', 'l', 'l', 'o', 0});
  CHECK(b.labels == std::vector<std::int32_t>{'b', 'c', -100, -100, -100, -100, 'e', 'l', 'l', 'o', -100, -100});
  CHECK(b.positions == std::vector<std::int32_t>{0, 1, 2, 0, 0, 0, 0, 1, 2, 3, 4, 0});
  CHECK(b.segments == std::vector<std::int32_t>{0, 0, 0, -1, -1, -1, 0, 0, 0, 0, 0, -1});
  CHECK(make_eval_batch(c, 10, 6).rows == 3);  // fewer eval sequences than rows
  c.eval.clear();
  CHECK_THROWS_AS(make_eval_batch(c, 2, 6), std::invalid_argument);
}
