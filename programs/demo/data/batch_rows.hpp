// Writing sequences into the rows of a Batch, the one layout both batch
// sources and the eval batch share: labels[i] = tokens[i + 1] within the
// same sequence, the last token of each sequence and padding get
// kIgnoreLabel, positions restart at 0 per sequence, segments number the
// sequences of a row from 0 (-1 = padding).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "batch.hpp"

namespace frugal_demo {

// rows x seq of padding: token 0, label ignored, position 0, segment -1.
Batch padding_batch(std::size_t rows, std::size_t seq);

// Writes `sequence` at row `row`, columns [offset, offset + size) with
// segment id `segment`. The caller keeps it inside the row.
void write_sequence(Batch& batch, std::size_t row, std::size_t offset, std::span<const std::int32_t> sequence,
                    std::int32_t segment);

// Throws std::invalid_argument when a sequence is longer than seq
// (`what` names the sequences, e.g. "train").
void require_fits(std::span<const std::vector<std::int32_t>> sequences, std::size_t seq, const char* what);

}  // namespace frugal_demo
