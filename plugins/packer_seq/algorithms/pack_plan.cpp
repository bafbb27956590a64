#include "algorithms/pack_plan.hpp"

#include "algorithms/large_buffer.hpp"

namespace frugal::packer {

void PackPlan::add(std::span<const int64_t> pattern, int64_t copies) {
  if (copies <= 0 || pattern.empty()) return;
  lengths_.insert(lengths_.end(), pattern.begin(), pattern.end());
  offsets_.push_back(static_cast<int64_t>(lengths_.size()));
  copies_.push_back(copies);
  packs_ += copies;
}

std::span<const int64_t> PackPlan::pattern(std::size_t g) const {
  const auto begin = static_cast<std::size_t>(offsets_[g]);
  const auto end = static_cast<std::size_t>(offsets_[g + 1]);
  return std::span<const int64_t>(lengths_).subspan(begin, end - begin);
}

namespace {

// The places one run of equal lengths in one group's pattern provides: in
// copy c (of copies), items[first + c * stride + r] for r < run.
struct Run {
  int64_t first = 0;
  int64_t stride = 0;
  int64_t run = 0;
  int64_t copies = 0;
};

// Where the next sequence of one length goes: runs[next_run] at (copy, r).
struct Cursor {
  std::size_t next_run = 0;
  std::size_t end_run = 0;
  int64_t copy = 0;
  int64_t r = 0;
};

}  // namespace

PackResult materialize(const PackPlan& plan, std::span<const int64_t> lengths, int64_t max_len) {
  const auto packs = static_cast<std::size_t>(plan.packs());
  PackResult r = sized_result(packs, lengths.size());

  // Offsets and tokens pack by pack; the runs of every length, bucketed by
  // length in plan order (a counting sort over the plan, not over n).
  std::vector<std::size_t> runs_start(static_cast<std::size_t>(max_len) + 2, 0);
  std::size_t p = 0;
  int64_t item = 0;
  for (std::size_t g = 0; g < plan.groups(); ++g) {
    const auto pattern = plan.pattern(g);
    int64_t tokens = 0;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      tokens += pattern[i];
      if (i == 0 || pattern[i] != pattern[i - 1]) ++runs_start[static_cast<std::size_t>(pattern[i]) + 1];
    }
    const auto size = static_cast<int64_t>(pattern.size());
    for (int64_t c = 0; c < plan.copies(g); ++c) {
      r.tokens[p] = tokens;
      item += size;
      r.offsets[++p] = item;
    }
  }
  for (std::size_t l = 1; l < runs_start.size(); ++l) runs_start[l] += runs_start[l - 1];
  std::vector<Run> runs(runs_start.back());
  {
    std::vector<std::size_t> fill(runs_start.begin(), runs_start.end() - 1);
    int64_t first = 0;
    for (std::size_t g = 0; g < plan.groups(); ++g) {
      const auto pattern = plan.pattern(g);
      const auto size = static_cast<int64_t>(pattern.size());
      for (std::size_t i = 0; i < pattern.size();) {
        std::size_t j = i;
        while (j < pattern.size() && pattern[j] == pattern[i]) ++j;
        runs[fill[static_cast<std::size_t>(pattern[i])]++] =
            Run{first + static_cast<int64_t>(i), size, static_cast<int64_t>(j - i), plan.copies(g)};
        i = j;
      }
      first += size * plan.copies(g);
    }
  }
  std::vector<Cursor> cursor(static_cast<std::size_t>(max_len) + 1);
  for (std::size_t l = 0; l < cursor.size(); ++l) cursor[l] = Cursor{runs_start[l], runs_start[l + 1], 0, 0};

  // Sequences in index order, each into the next place of its length: the
  // sequences of one length fill that length's places in ascending order.
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    Cursor& at = cursor[static_cast<std::size_t>(lengths[i])];
    const Run& run = runs[at.next_run];
    r.items[static_cast<std::size_t>(run.first + at.copy * run.stride + at.r)] = static_cast<int64_t>(i);
    if (++at.r == run.run) {
      at.r = 0;
      if (++at.copy == run.copies) {
        at.copy = 0;
        ++at.next_run;
      }
    }
  }
  return r;
}

}  // namespace frugal::packer
