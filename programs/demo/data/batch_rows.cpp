#include "batch_rows.hpp"

#include <stdexcept>
#include <string>

#include "cross_entropy.hpp"

namespace frugal_demo {

Batch padding_batch(std::size_t rows, std::size_t seq) {
  Batch b;
  b.rows = rows;
  b.seq = seq;
  b.tokens.assign(rows * seq, 0);
  b.labels.assign(rows * seq, kIgnoreLabel);
  b.positions.assign(rows * seq, 0);
  b.segments.assign(rows * seq, -1);
  return b;
}

void write_sequence(Batch& batch, std::size_t row, std::size_t offset, std::span<const std::int32_t> sequence,
                    std::int32_t segment) {
  const std::size_t base = row * batch.seq + offset;
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    batch.tokens[base + i] = sequence[i];
    batch.labels[base + i] = i + 1 < sequence.size() ? sequence[i + 1] : kIgnoreLabel;
    batch.positions[base + i] = static_cast<std::int32_t>(i);
    batch.segments[base + i] = segment;
  }
}

void require_fits(std::span<const std::vector<std::int32_t>> sequences, std::size_t seq, const char* what) {
  for (std::size_t i = 0; i < sequences.size(); ++i) {
    if (sequences[i].size() > seq)
      throw std::invalid_argument(std::string(what) + " sequence " + std::to_string(i) + " has " +
                                  std::to_string(sequences[i].size()) + " tokens, more than a row of " +
                                  std::to_string(seq) + " (load the corpus with max_len <= seq)");
  }
}

}  // namespace frugal_demo
