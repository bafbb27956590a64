// The box geometry of sharded checkpoints (core/src/ckpt/chunk_box.cpp)
// against brute force on fresh random boxes: every element of a source
// box that falls in a target box is copied exactly once, to its place, and
// the overlap test agrees with a comparison of every pair of elements.
#include "ckpt/chunk_box.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

using frugal::ckpt::Box;

namespace {

// Row-major index of `at` in a box.
uint64_t index_of(const Box& box, const std::vector<int64_t>& at) {
  uint64_t index = 0;
  for (size_t d = 0; d < box.ndim(); ++d)
    index = index * static_cast<uint64_t>(box.extents[d]) + static_cast<uint64_t>(at[d] - box.offsets[d]);
  return index;
}

// Every position of a box, row-major.
std::vector<std::vector<int64_t>> positions(const Box& box) {
  std::vector<std::vector<int64_t>> out;
  std::vector<int64_t> at = box.offsets;
  const auto count = frugal::ckpt::element_count(box.extents).value();
  for (uint64_t i = 0; i < count; ++i) {
    out.push_back(at);
    for (size_t d = box.ndim(); d-- > 0;) {
      if (++at[d] < box.offsets[d] + box.extents[d]) break;
      at[d] = box.offsets[d];
    }
  }
  return out;
}

bool inside(const Box& box, const std::vector<int64_t>& at) {
  for (size_t d = 0; d < box.ndim(); ++d)
    if (at[d] < box.offsets[d] || at[d] >= box.offsets[d] + box.extents[d]) return false;
  return true;
}

Box random_box(std::mt19937_64& rng, const std::vector<int64_t>& global) {
  Box box;
  for (const int64_t extent : global) {
    const int64_t a = std::uniform_int_distribution<int64_t>(0, extent)(rng);
    const int64_t b = std::uniform_int_distribution<int64_t>(0, extent)(rng);
    box.offsets.push_back(std::min(a, b));
    box.extents.push_back(std::max(a, b) - std::min(a, b));
  }
  return box;
}

}  // namespace

TEST_CASE("for_each_run copies every shared element once, to its place, in as few runs as contiguity allows") {
  std::mt19937_64 rng(std::random_device{}());
  for (int trial = 0; trial < 2000; ++trial) {
    const size_t ndim = std::uniform_int_distribution<size_t>(0, 4)(rng);
    std::vector<int64_t> global;
    for (size_t d = 0; d < ndim; ++d) global.push_back(std::uniform_int_distribution<int64_t>(1, 6)(rng));
    const Box source = random_box(rng, global);
    const Box target = random_box(rng, global);
    INFO("trial " << trial << ", " << ndim << " dimensions");
    const auto overlap = frugal::ckpt::intersect(source, target);
    // Brute force: source index -> target index for each shared element.
    std::map<uint64_t, uint64_t> expected;
    for (const auto& at : positions(source))
      if (inside(target, at)) expected[index_of(source, at)] = index_of(target, at);
    if (ndim == 0) {
      REQUIRE(overlap.has_value());  // a scalar overlaps itself
    }
    if (!overlap) {
      CHECK(expected.empty());
      continue;
    }
    std::map<uint64_t, uint64_t> copied;
    uint64_t runs = 0;
    uint64_t last_end = 0;
    frugal::ckpt::for_each_run(source, target, *overlap, [&](const frugal::ckpt::Run& run) {
      ++runs;
      CHECK(run.count > 0);
      CHECK((runs == 1 || run.source >= last_end));  // in row-major order, never overlapping
      last_end = run.source + run.count;
      for (uint64_t i = 0; i < run.count; ++i) CHECK(copied.emplace(run.source + i, run.target + i).second);
    });
    CHECK(copied == expected);
    // The span a reader fetches: the first shared element to the last.
    if (!expected.empty())
      CHECK(frugal::ckpt::element_span(source, *overlap) ==
            std::pair(expected.begin()->first, expected.rbegin()->first + 1));
    // Fewest runs: a run ends exactly where the next element is not
    // contiguous on both sides.
    uint64_t breaks = 0;
    uint64_t previous_source = 0;
    uint64_t previous_target = 0;
    bool first = true;
    for (const auto& [s, t] : expected) {
      if (!first && !(s == previous_source + 1 && t == previous_target + 1)) ++breaks;
      first = false;
      previous_source = s;
      previous_target = t;
    }
    CHECK(runs == (expected.empty() ? 0 : breaks + 1));
  }
}

TEST_CASE("any_overlap agrees with comparing every pair of boxes") {
  std::mt19937_64 rng(std::random_device{}());
  for (int trial = 0; trial < 3000; ++trial) {
    const size_t ndim = std::uniform_int_distribution<size_t>(1, 3)(rng);
    std::vector<int64_t> global;
    for (size_t d = 0; d < ndim; ++d) global.push_back(std::uniform_int_distribution<int64_t>(1, 8)(rng));
    std::vector<Box> boxes;
    const size_t n = std::uniform_int_distribution<size_t>(0, 6)(rng);
    while (boxes.size() < n) {
      Box b = random_box(rng, global);
      if (frugal::ckpt::element_count(b.extents).value() > 0) boxes.push_back(std::move(b));
    }
    bool expected = false;
    for (size_t i = 0; i < boxes.size(); ++i)
      for (size_t j = 0; j < i; ++j) expected = expected || frugal::ckpt::intersect(boxes[i], boxes[j]).has_value();
    INFO("trial " << trial);
    CHECK(frugal::ckpt::any_overlap(boxes) == expected);
  }
  // A split of 4096 rows in 4096 chunks, as a large job writes it: disjoint.
  std::vector<Box> rows;
  for (int64_t r = 0; r < 4096; ++r) rows.push_back({{r, 0}, {1, 64}});
  CHECK_FALSE(frugal::ckpt::any_overlap(rows));
  rows.push_back({{100, 63}, {1, 1}});
  CHECK(frugal::ckpt::any_overlap(rows));
}

TEST_CASE("box_outside names what puts a box outside its tensor, and element_count refuses overflow") {
  const std::vector<int64_t> global{4, 6};
  CHECK(frugal::ckpt::box_outside({{0, 0}, {4, 6}}, global).empty());
  CHECK(frugal::ckpt::box_outside({{4, 6}, {0, 0}}, global).empty());  // empty, at the far corner
  CHECK_THAT(frugal::ckpt::box_outside({{0}, {4}}, global), Catch::Contains("1 offsets and 1 extents"));
  CHECK_THAT(frugal::ckpt::box_outside({{1, 0}, {4, 6}}, global),
             Catch::Contains("dimension 0 spans [1, 1 + 4), past the tensor's extent 4"));
  CHECK_THAT(frugal::ckpt::box_outside({{0, -1}, {1, 1}}, global), Catch::Contains("neither may be negative"));
  CHECK_THAT(frugal::ckpt::box_outside({{0, INT64_MAX}, {1, INT64_MAX}}, global), Catch::Contains("past"));
  CHECK(frugal::ckpt::element_count(std::vector<int64_t>{}) == uint64_t{1});
  CHECK(frugal::ckpt::element_count(std::vector<int64_t>{3, 0, 5}) == uint64_t{0});
  CHECK_FALSE(frugal::ckpt::element_count(std::vector<int64_t>{INT64_MAX, INT64_MAX, 4}).has_value());
  CHECK_FALSE(frugal::ckpt::element_count(std::vector<int64_t>{-1}).has_value());
}
