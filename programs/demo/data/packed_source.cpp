// The frugal run's batches: the packer_seq plugin packs whole sequences
// into the batch's rows; segment ids keep attention inside each sequence
// and positions restart at 0 in each, so a packed sequence trains exactly
// as it would alone in a padded row.
#include <stdexcept>
#include <string>

#include "batch_rows.hpp"
#include "batch_source.hpp"
#include "epoch_order.hpp"
#include "frugal/sdk/host.hpp"

namespace frugal_demo {
namespace {

namespace host = frugal::host;

constexpr const char* kPackAlgorithm = "refined";

class PackedSource final : public BatchSource {
 public:
  PackedSource(frugal_context* context, const Corpus& corpus, std::size_t rows, std::size_t seq, std::uint64_t seed)
      : corpus_(corpus), rows_(rows), seq_(seq), order_(corpus.train.size(), seed, 'P'), ahead_(order_) {
    host::Options options;
    options.set("max_len", seq).set("algo", kPackAlgorithm);
    packer_ = host::make_packer(context, "packer_seq", options.get());
    positions_.resize(seq);
    segments_.resize(seq);
  }

  Batch next(BatchAccounting* accounting) override {
    // Take sequences in order while their tokens fit the batch's slots...
    const std::size_t slots = rows_ * seq_;
    std::vector<std::size_t> taken;
    std::vector<std::int64_t> lengths;
    std::size_t tokens = 0;
    // Looks ahead on a copy; order_ moves once the batch is settled. The
    // copy is a member so its buffer is reused from batch to batch.
    ahead_ = order_;
    for (std::size_t i = 0; i < ahead_.count(); ++i) {
      const std::size_t id = ahead_.current();
      const std::size_t length = corpus_.train[id].size();
      if (tokens + length > slots) break;
      tokens += length;
      taken.push_back(id);
      lengths.push_back(static_cast<std::int64_t>(length));
      ahead_.advance();
    }
    // ... then give the last ones back to the next batch until the plan
    // fits the rows (the packer may need a row more than the token count
    // suggests). Deterministic: the same start gives the same batch.
    host::PackPlanPtr plan = pack(lengths);
    while (pack_count(plan.get()) > rows_) {
      taken.pop_back();
      lengths.pop_back();
      plan = pack(lengths);
    }
    for (std::size_t i = 0; i < taken.size(); ++i) order_.advance();

    Batch batch = padding_batch(rows_, seq_);
    fill_rows(plan.get(), taken, batch);
    if (accounting != nullptr) {
      accounting->slots = slots;
      accounting->sequences = taken.size();
      accounting->real_tokens = 0;
      for (const std::int64_t length : lengths) accounting->real_tokens += static_cast<std::size_t>(length);
    }
    return batch;
  }

  [[nodiscard]] std::vector<std::uint8_t> cursor() const override { return order_.cursor(); }
  void seek(std::span<const std::uint8_t> cursor) override { order_.seek(cursor); }
  [[nodiscard]] std::string describe() const override {
    return std::string("packed by packer_seq (algo ") + kPackAlgorithm + "), attention kept inside each sequence";
  }
  [[nodiscard]] const std::vector<std::size_t>& last_sequences() const override { return last_; }

 private:
  host::PackPlanPtr pack(const std::vector<std::int64_t>& lengths) {
    frugal_pack_plan* plan = nullptr;
    host::check(frugal_packer_pack(packer_.get(), lengths.data(), lengths.size(), &plan));
    return host::PackPlanPtr(plan);
  }

  static std::size_t pack_count(const frugal_pack_plan* plan) { return view_of(plan).pack_count; }

  static frugal_pack_plan_view view_of(const frugal_pack_plan* plan) {
    frugal_pack_plan_view view{};
    view.struct_size = sizeof(view);
    host::check(frugal_pack_plan_view_get(plan, &view));
    return view;
  }

  // One pack per row, its units in the plan's order; positions and segment
  // ids as the plugin derives them (segment k + 1 -> k, padding 0 -> -1).
  void fill_rows(const frugal_pack_plan* plan, const std::vector<std::size_t>& taken, Batch& batch) {
    const frugal_pack_plan_view view = view_of(plan);
    last_.clear();
    for (std::size_t row = 0; row < view.pack_count; ++row) {
      std::size_t offset = 0;
      for (auto u = static_cast<std::size_t>(view.pack_offsets[row]);
           u < static_cast<std::size_t>(view.pack_offsets[row + 1]); ++u) {
        const std::size_t id = taken[static_cast<std::size_t>(view.sequence_ids[u])];
        const auto& sequence = corpus_.train[id];
        last_.push_back(id);
        write_sequence(batch, row, offset, sequence, 0);
        offset += sequence.size();
      }
      host::check(frugal_pack_plan_position_ids(plan, row, positions_.data(), seq_));
      host::check(frugal_pack_plan_segment_ids(plan, row, segments_.data(), seq_));
      for (std::size_t i = 0; i < seq_; ++i) {
        batch.positions[row * seq_ + i] = static_cast<std::int32_t>(positions_[i]);
        batch.segments[row * seq_ + i] = segments_[i] - 1;
      }
    }
  }

  const Corpus& corpus_;
  std::size_t rows_;
  std::size_t seq_;
  EpochOrder order_;
  EpochOrder ahead_;  // next()'s lookahead, kept for its buffer
  host::PackerPtr packer_;
  std::vector<std::int64_t> positions_;
  std::vector<std::int32_t> segments_;
  std::vector<std::size_t> last_;
};

}  // namespace

std::unique_ptr<BatchSource> make_packed_source(frugal_context* context, const Corpus& corpus, std::size_t rows,
                                                std::size_t seq, std::uint64_t seed) {
  if (context == nullptr) throw std::invalid_argument("packed source: context is null");
  if (rows == 0 || seq == 0) throw std::invalid_argument("packed source: rows and seq must be > 0");
  if (corpus.train.empty()) throw std::invalid_argument("packed source: the corpus has no train sequence");
  require_fits(corpus.train, seq, "train");
  return std::make_unique<PackedSource>(context, corpus, rows, seq, seed);
}

}  // namespace frugal_demo
