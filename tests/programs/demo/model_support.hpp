// Shared batches and configs for the whole-model tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "batch.hpp"
#include "cross_entropy.hpp"

namespace demo_test {

// Packs sequences of token ids into rows of `seq` tokens: each sequence
// starts at position 0 with its own segment id; its last token has no
// label; the rest of a row is padding (segment -1, label ignored).
inline frugal_demo::Batch pack_rows(const std::vector<std::vector<std::vector<std::int32_t>>>& rows, std::size_t seq) {
  frugal_demo::Batch b;
  b.rows = rows.size();
  b.seq = seq;
  for (const auto& row : rows) {
    std::size_t used = 0;
    std::int32_t segment = 0;
    for (const auto& sequence : row) {
      for (std::size_t i = 0; i < sequence.size(); ++i) {
        b.tokens.push_back(sequence[i]);
        b.labels.push_back(i + 1 < sequence.size() ? sequence[i + 1] : frugal_demo::kIgnoreLabel);
        b.positions.push_back(static_cast<std::int32_t>(i));
        b.segments.push_back(segment);
      }
      used += sequence.size();
      ++segment;
    }
    for (; used < seq; ++used) {
      b.tokens.push_back(0);
      b.labels.push_back(frugal_demo::kIgnoreLabel);
      b.positions.push_back(0);
      b.segments.push_back(-1);
    }
  }
  return b;
}

}  // namespace demo_test
