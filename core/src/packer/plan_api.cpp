// frugal_pack_plan_*: statistics, the flat view, and the per-pack formats
// derived from the assignment (varlen, position ids, segment ids, mask,
// token/label gather). Every format is computed here, from the plan alone,
// so no packer plugin can get one wrong.
#include <algorithm>
#include <cstring>

#include "error.hpp"
#include "frugal/packer.h"
#include "packer/pack_plan.hpp"
#include "sized_structs.hpp"

namespace {

using frugal::fail;
using frugal::pack::pack_span;

void require_row(std::size_t length, int64_t tokens, const char* function, const char* what) {
  if (length < static_cast<std::size_t>(tokens))
    fail(FRUGAL_ERR_OUT_OF_RANGE, "{}: {} is {} but the pack holds {} tokens", function, what, length, tokens);
}

}  // namespace

extern "C" {

FRUGAL_API frugal_error* frugal_pack_plan_stats(const frugal_pack_plan* plan, frugal_pack_stats* stats) {
  return frugal::guard("frugal_pack_plan_stats", [&] {
    frugal::require_non_null(plan, "frugal_pack_plan_stats", "plan");
    frugal::write_sized(stats, plan->stats, "frugal_pack_plan_stats");
  });
}

FRUGAL_API frugal_error* frugal_pack_plan_view_get(const frugal_pack_plan* plan, frugal_pack_plan_view* view) {
  return frugal::guard("frugal_pack_plan_view_get", [&] {
    frugal::require_non_null(plan, "frugal_pack_plan_view_get", "plan");
    const auto& g = plan->packs;
    const frugal_pack_plan_view full{sizeof(frugal_pack_plan_view),
                                     g.packs(),
                                     g.units(),
                                     g.pack_offsets.data(),
                                     g.sequence_ids.data(),
                                     g.token_offsets.empty() ? plan->zero_offsets.get() : g.token_offsets.data(),
                                     g.unit_lengths.data(),
                                     plan->pack_tokens.data()};
    frugal::write_sized(view, full, "frugal_pack_plan_view_get");
  });
}

FRUGAL_API frugal_error* frugal_pack_plan_varlen(const frugal_pack_plan* plan, size_t pack, int32_t* cu_seqlens,
                                                 size_t capacity, size_t* written, int32_t* max_seqlen) {
  constexpr const char* kFn = "frugal_pack_plan_varlen";
  return frugal::guard(kFn, [&] {
    const auto span = pack_span(plan, pack, kFn);
    frugal::require_non_null(cu_seqlens, kFn, "cu_seqlens");
    const auto units = static_cast<std::size_t>(span.end - span.first);
    if (capacity < units + 1)
      fail(FRUGAL_ERR_OUT_OF_RANGE, "{}: cu_seqlens holds {} entries; pack {} needs {} (units + 1)", kFn, capacity,
           pack, units + 1);
    // max_len fits int32 (checked at creation), so every prefix sum does.
    int32_t sum = 0;
    int32_t longest = 0;
    cu_seqlens[0] = 0;
    for (std::size_t k = 0; k < units; ++k) {
      const auto len = static_cast<int32_t>(plan->packs.unit_lengths[static_cast<std::size_t>(span.first) + k]);
      sum += len;
      longest = std::max(longest, len);
      cu_seqlens[k + 1] = sum;
    }
    if (written != nullptr) *written = units + 1;
    if (max_seqlen != nullptr) *max_seqlen = longest;
  });
}

FRUGAL_API frugal_error* frugal_pack_plan_position_ids(const frugal_pack_plan* plan, size_t pack, int64_t* out,
                                                       size_t length) {
  constexpr const char* kFn = "frugal_pack_plan_position_ids";
  return frugal::guard(kFn, [&] {
    const auto span = pack_span(plan, pack, kFn);
    frugal::require_non_null(out, kFn, "out");
    require_row(length, span.tokens, kFn, "length");
    std::size_t t = 0;
    for (auto k = span.first; k < span.end; ++k) {
      const int64_t len = plan->packs.unit_lengths[static_cast<std::size_t>(k)];
      for (int64_t i = 0; i < len; ++i) out[t++] = i;
    }
    std::fill(out + t, out + length, int64_t{0});
  });
}

FRUGAL_API frugal_error* frugal_pack_plan_segment_ids(const frugal_pack_plan* plan, size_t pack, int32_t* out,
                                                      size_t length) {
  constexpr const char* kFn = "frugal_pack_plan_segment_ids";
  return frugal::guard(kFn, [&] {
    const auto span = pack_span(plan, pack, kFn);
    frugal::require_non_null(out, kFn, "out");
    require_row(length, span.tokens, kFn, "length");
    int32_t* cursor = out;
    int32_t segment = 0;
    for (auto k = span.first; k < span.end; ++k) {
      ++segment;
      const auto len = static_cast<std::size_t>(plan->packs.unit_lengths[static_cast<std::size_t>(k)]);
      std::fill(cursor, cursor + len, segment);
      cursor += len;
    }
    std::fill(cursor, out + length, int32_t{0});
  });
}

FRUGAL_API frugal_error* frugal_pack_plan_mask(const frugal_pack_plan* plan, size_t pack, uint8_t* out, size_t side) {
  constexpr const char* kFn = "frugal_pack_plan_mask";
  return frugal::guard(kFn, [&] {
    const auto span = pack_span(plan, pack, kFn);
    frugal::require_non_null(out, kFn, "out");
    require_row(side, span.tokens, kFn, "side");
    std::memset(out, 0, side * side);
    std::size_t start = 0;
    for (auto k = span.first; k < span.end; ++k) {
      const auto len = static_cast<std::size_t>(plan->packs.unit_lengths[static_cast<std::size_t>(k)]);
      // Query q of this unit sees keys start .. q: the causal lower
      // triangle of the unit's diagonal block.
      for (std::size_t q = start; q < start + len; ++q) std::memset(out + q * side + start, 1, q - start + 1);
      start += len;
    }
    for (std::size_t q = start; q < side; ++q) out[q * side + q] = 1;
  });
}

FRUGAL_API frugal_error* frugal_pack_plan_gather(const frugal_pack_plan* plan, size_t pack,
                                                 const frugal_pack_gather_args* raw_args) {
  constexpr const char* kFn = "frugal_pack_plan_gather";
  return frugal::guard(kFn, [&] {
    const auto span = pack_span(plan, pack, kFn);
    frugal::require_non_null(raw_args, kFn, "args");
    const frugal_pack_gather_args args = frugal::read_sized(raw_args);
    if (args.struct_size < offsetof(frugal_pack_gather_args, mask_first_label) + sizeof(int32_t))
      fail(FRUGAL_ERR_ABI_MISMATCH, "{}: args->struct_size is {}; set it to sizeof(frugal_pack_gather_args) ({})", kFn,
           args.struct_size, sizeof(frugal_pack_gather_args));
    frugal::require_non_null(args.tokens, kFn, "args->tokens");
    frugal::require_non_null(args.sequence_offsets, kFn, "args->sequence_offsets");
    frugal::require_non_null(args.out_tokens, kFn, "args->out_tokens");
    require_row(args.out_length, span.tokens, kFn, "args->out_length");
    const auto& g = plan->packs;
    std::size_t t = 0;
    for (auto k = span.first; k < span.end; ++k) {
      const auto u = static_cast<std::size_t>(k);
      const int64_t id = g.sequence_ids[u];
      if (id < 0 || static_cast<uint64_t>(id) >= args.sequence_count)
        fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: sequence {} is not below args->sequence_count ({})", kFn, id,
             args.sequence_count);
      const int64_t begin = args.sequence_offsets[id];
      const int64_t end = args.sequence_offsets[id + 1];
      const int64_t need = g.token_offset(u) + g.unit_lengths[u];
      if (begin < 0 || end < begin || end - begin < need)
        fail(FRUGAL_ERR_INVALID_ARGUMENT,
             "{}: sequence {} has {} tokens in the arrays (offsets {} .. {}) but the plan needs {}", kFn, id,
             end - begin, begin, end, need);
      const int64_t from = begin + g.token_offset(u);
      const auto len = static_cast<std::size_t>(g.unit_lengths[u]);
      std::copy_n(args.tokens + from, len, args.out_tokens + t);
      if (args.out_labels != nullptr) {
        const int64_t* labels = args.labels != nullptr ? args.labels : args.tokens;
        std::copy_n(labels + from, len, args.out_labels + t);
        // The model shifts labels by one, so without this the first token
        // of a unit would be trained as the continuation of the previous.
        if (args.mask_first_label != 0) args.out_labels[t] = args.ignore_index;
      }
      t += len;
    }
    std::fill(args.out_tokens + t, args.out_tokens + args.out_length, args.pad_token);
    if (args.out_labels != nullptr)
      std::fill(args.out_labels + t, args.out_labels + args.out_length, args.ignore_index);
  });
}

FRUGAL_API void frugal_pack_plan_destroy(frugal_pack_plan* plan) { delete plan; }

}  // extern "C"
