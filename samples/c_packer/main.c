/*
 * A C host packing a small tokenised dataset through frugal/packer.h: it
 * packs 2000 sequences of random length into rows of 256 tokens, builds
 * every row with the gather (tokens, labels with each sequence's first
 * label masked) and the flash-attention cu_seqlens, and checks each row
 * independently against the dataset. Exits 0 only if every check holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frugal/frugal.h"
#include "sample_support.h"

enum { kSequences = 2000, kMaxLen = 256 };

/* A small deterministic generator, so the sample needs nothing else. */
int main(void) {
  static int64_t lengths[kSequences];
  static int64_t offsets[kSequences + 1];
  static int64_t row_tokens[kMaxLen], row_labels[kMaxLen];
  static int32_t cu_seqlens[kMaxLen + 1];
  int64_t* tokens = NULL;
  frugal_context* context = NULL;
  frugal_options* options = NULL;
  frugal_packer* packer = NULL;
  frugal_pack_plan* plan = NULL;
  frugal_pack_stats stats;
  frugal_pack_plan_view view;
  frugal_pack_gather_args gather;
  uint64_t state = 42;
  size_t i, p;
  int errors = 0;

  /* Token t of sequence s has id s * 1000 + t: any misplaced token shows. */
  offsets[0] = 0;
  for (i = 0; i < kSequences; ++i) {
    lengths[i] = 1 + (int64_t)(next_random(&state) % 200);
    offsets[i + 1] = offsets[i] + lengths[i];
  }
  tokens = malloc((size_t)offsets[kSequences] * sizeof *tokens);
  if (tokens == NULL) return 1;
  for (i = 0; i < kSequences; ++i) {
    int64_t t;
    for (t = 0; t < lengths[i]; ++t) tokens[offsets[i] + t] = (int64_t)i * 1000 + t;
  }

  if (failed(frugal_context_create(&context), "frugal_context_create")) return 1;
  if (failed(frugal_context_discover_plugins(context, 0, NULL), "discover")) return 1;
  if (failed(frugal_options_create(&options), "frugal_options_create")) return 1;
  if (failed(frugal_options_set_int(options, "max_len", kMaxLen), "set max_len")) return 1;
  if (failed(frugal_packer_create(context, "packer_seq", options, &packer), "frugal_packer_create")) return 1;
  frugal_options_destroy(options);
  if (failed(frugal_packer_pack(packer, lengths, kSequences, &plan), "frugal_packer_pack")) return 1;

  memset(&stats, 0, sizeof stats);
  stats.struct_size = sizeof stats;
  memset(&view, 0, sizeof view);
  view.struct_size = sizeof view;
  if (failed(frugal_pack_plan_stats(plan, &stats), "stats") || failed(frugal_pack_plan_view_get(plan, &view), "view"))
    return 1;
  printf("%ld sequences -> %ld packs of %d tokens with %s: efficiency %.2f%%, %.2fx fewer rows\n",
         (long)stats.sequences, (long)stats.packs, kMaxLen, stats.method, 100.0 * stats.efficiency, stats.speedup);

  memset(&gather, 0, sizeof gather);
  gather.struct_size = sizeof gather;
  gather.tokens = tokens;
  gather.sequence_offsets = offsets;
  gather.sequence_count = kSequences;
  gather.out_tokens = row_tokens;
  gather.out_labels = row_labels;
  gather.out_length = kMaxLen;
  gather.pad_token = -1;
  gather.ignore_index = -100;
  gather.mask_first_label = 1;
  for (p = 0; p < view.pack_count; ++p) {
    size_t written = 0, k;
    int32_t max_seqlen = 0;
    int64_t pos = 0;
    if (failed(frugal_pack_plan_gather(plan, p, &gather), "gather") ||
        failed(frugal_pack_plan_varlen(plan, p, cu_seqlens, kMaxLen + 1, &written, &max_seqlen), "varlen"))
      return 1;
    for (k = 0; k + 1 < written; ++k) {
      const int64_t seq = view.sequence_ids[view.pack_offsets[p] + (int64_t)k];
      int64_t t;
      if (cu_seqlens[k] != pos || cu_seqlens[k + 1] - cu_seqlens[k] != lengths[seq]) ++errors;
      for (t = 0; t < lengths[seq]; ++t, ++pos) {
        if (row_tokens[pos] != seq * 1000 + t) ++errors;
        if (row_labels[pos] != (t == 0 ? -100 : seq * 1000 + t)) ++errors;
      }
    }
    for (; pos < kMaxLen; ++pos)
      if (row_tokens[pos] != -1 || row_labels[pos] != -100) ++errors;
  }
  frugal_pack_plan_destroy(plan);
  frugal_packer_destroy(packer);
  frugal_context_destroy(context);
  free(tokens);
  if (errors != 0) {
    fprintf(stderr, "%d mismatch(es) between the packed rows and the dataset\n", errors);
    return 1;
  }
  printf("all %lu packed rows match the dataset\n", (unsigned long)view.pack_count);
  return 0;
}
