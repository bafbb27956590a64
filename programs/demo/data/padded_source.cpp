// The baseline's batches: one sequence per row, the rest of the row padding.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "batch_rows.hpp"
#include "batch_source.hpp"
#include "epoch_order.hpp"

namespace frugal_demo {
namespace {

class PaddedSource final : public BatchSource {
 public:
  PaddedSource(const Corpus& corpus, std::size_t rows, std::size_t seq, std::uint64_t seed)
      : corpus_(corpus), rows_(rows), seq_(seq), order_(corpus.train.size(), seed, 'D') {}

  Batch next(BatchAccounting* accounting) override {
    Batch batch = padding_batch(rows_, seq_);
    last_.clear();
    BatchAccounting counts;
    counts.slots = rows_ * seq_;
    for (std::size_t row = 0; row < rows_; ++row) {
      const std::size_t id = order_.current();
      order_.advance();
      write_sequence(batch, row, 0, corpus_.train[id], 0);
      last_.push_back(id);
      counts.real_tokens += corpus_.train[id].size();
      ++counts.sequences;
    }
    if (accounting != nullptr) *accounting = counts;
    return batch;
  }

  std::vector<std::uint8_t> cursor() const override { return order_.cursor(); }
  void seek(std::span<const std::uint8_t> cursor) override { order_.seek(cursor); }
  std::string describe() const override { return "padded: one sequence per row"; }
  const std::vector<std::size_t>& last_sequences() const override { return last_; }

 private:
  const Corpus& corpus_;
  std::size_t rows_;
  std::size_t seq_;
  EpochOrder order_;
  std::vector<std::size_t> last_;
};

}  // namespace

std::unique_ptr<BatchSource> make_padded_source(const Corpus& corpus, std::size_t rows, std::size_t seq,
                                                std::uint64_t seed) {
  if (rows == 0 || seq == 0) throw std::invalid_argument("padded source: rows and seq must be > 0");
  if (corpus.train.empty()) throw std::invalid_argument("padded source: the corpus has no train sequence");
  require_fits(corpus.train, seq, "train");
  return std::make_unique<PaddedSource>(corpus, rows, seq, seed);
}

Batch make_eval_batch(const Corpus& corpus, std::size_t rows, std::size_t seq) {
  if (rows == 0 || seq == 0) throw std::invalid_argument("eval batch: rows and seq must be > 0");
  if (corpus.eval.empty()) throw std::invalid_argument("eval batch: the corpus has no eval sequence");
  const std::size_t used = std::min(rows, corpus.eval.size());
  require_fits(std::span(corpus.eval).first(used), seq, "eval");
  Batch batch = padding_batch(used, seq);
  for (std::size_t row = 0; row < used; ++row) write_sequence(batch, row, 0, corpus.eval[row], 0);
  return batch;
}

}  // namespace frugal_demo
