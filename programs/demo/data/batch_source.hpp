// Where training batches come from: the baseline's padded rows or the
// frugal run's packed rows, behind one interface, resumable from a cursor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "batch.hpp"
#include "corpus.hpp"
#include "frugal/frugal.h"

namespace frugal_demo {

// What one batch holds: padding waste = 1 - real_tokens / slots.
struct BatchAccounting {
  std::size_t real_tokens = 0;
  std::size_t slots = 0;  // rows * seq
  std::size_t sequences = 0;
};

class BatchSource {
 public:
  BatchSource() = default;
  BatchSource(const BatchSource&) = delete;
  BatchSource& operator=(const BatchSource&) = delete;
  virtual ~BatchSource() = default;

  // The next batch; accounting (may be null) receives what it holds.
  // Deterministic given (seed, cursor). Batches run across epoch ends: the
  // train sequences are reshuffled for each epoch.
  virtual Batch next(BatchAccounting* accounting) = 0;
  // Opaque bytes: where the next batch starts (for checkpoints).
  [[nodiscard]] virtual std::vector<std::uint8_t> cursor() const = 0;
  // Throws std::runtime_error on a malformed cursor, or one from another
  // kind of source or another corpus.
  virtual void seek(std::span<const std::uint8_t> cursor) = 0;
  // "padded: one sequence per row" / "packed by packer_seq (algo ...)".
  [[nodiscard]] virtual std::string describe() const = 0;
  // The train indices of the sequences in the last batch, in row order.
  [[nodiscard]] virtual const std::vector<std::size_t>& last_sequences() const = 0;
};

// One train sequence per row, padded to seq. Sources keep a reference to
// the corpus: it must outlive them. Throws std::invalid_argument
// when rows or seq is 0 or a train sequence is longer than seq.
std::unique_ptr<BatchSource> make_padded_source(const Corpus& corpus, std::size_t rows, std::size_t seq,
                                                std::uint64_t seed);

// As many train sequences per batch as the packer_seq plugin (from
// `context`, which must outlive nothing: the packer is created here) fits
// into `rows` rows of seq tokens; attention stays inside each sequence
// (segment ids). Throws as make_padded_source, and std::runtime_error with
// frugal's message when the packer cannot be created.
std::unique_ptr<BatchSource> make_packed_source(frugal_context* context, const Corpus& corpus, std::size_t rows,
                                                std::size_t seq, std::uint64_t seed);

// Padded rows of the first `rows` eval sequences (fewer rows when the
// corpus holds fewer): the eval loss of both runs uses the same batch.
// Throws std::invalid_argument when the corpus has no eval sequence or
// one of them is longer than seq.
Batch make_eval_batch(const Corpus& corpus, std::size_t rows, std::size_t seq);

}  // namespace frugal_demo
