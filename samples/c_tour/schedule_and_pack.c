/*
 * Tour steps 2-3 (samples/README.md): the cosine LR schedule against its
 * closed form, and packing sequences into rows. Each step makes its own
 * strategy object, checks what it returns against expectations computed
 * here independently, and frees what it made.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frugal/frugal.h"
#include "sample_support.h"
#include "tour.h"

/* ------------------------------------------------------------------------ */
/* Step 2: the cosine schedule against its closed form                       */
/* ------------------------------------------------------------------------ */

enum { kWarmup = 100, kTotal = 1000 };
static const double kPeakLr = 3e-4, kMinLr = 3e-5;

int tour_cosine_options(frugal_options** out) {
  frugal_options* options = NULL;
  if (failed(frugal_options_create(&options), "frugal_options_create")) return 1;
  if (failed(frugal_options_set_double(options, "lr", kPeakLr), "set lr") ||
      failed(frugal_options_set_double(options, "min_lr", kMinLr), "set min_lr") ||
      failed(frugal_options_set_int(options, "warmup_steps", kWarmup), "set warmup_steps") ||
      failed(frugal_options_set_int(options, "total_steps", kTotal), "set total_steps")) {
    frugal_options_destroy(options);
    return 1;
  }
  *out = options;
  return 0;
}

/* Linear warm-up, cosine decay to min_lr, then min_lr: written out here so
   the plugin is checked against something it did not compute. */
static double cosine_closed_form(int64_t step) {
  const double pi = 3.14159265358979323846;
  if (step < kWarmup) return kPeakLr * (double)(step + 1) / kWarmup;
  if (step >= kTotal) return kMinLr;
  return kMinLr + (kPeakLr - kMinLr) * 0.5 * (1.0 + cos(pi * (double)(step - kWarmup) / (kTotal - kWarmup)));
}

int tour_schedule(frugal_context* context) {
  static const int64_t kSteps[] = {0, 99, 100, 550, 999, 1000, 5000};
  enum { kCount = sizeof kSteps / sizeof kSteps[0] };
  frugal_options* options = NULL;
  frugal_schedule* schedule = NULL;
  double lr[kCount];
  int i, bad;

  if (tour_cosine_options(&options)) return 1;
  bad = failed(frugal_schedule_create(context, "cosine", options, &schedule), "frugal_schedule_create (cosine)");
  frugal_options_destroy(options);
  for (i = 0; !bad && i < kCount; ++i) {
    const double want = cosine_closed_form(kSteps[i]);
    if (failed(frugal_schedule_lr(schedule, kSteps[i], &lr[i]), "frugal_schedule_lr"))
      bad = 1;
    else if (fabs(lr[i] - want) > 1e-12 * fabs(want))
      bad = tour_mismatch("schedule: lr at step %lld is %.17g; the closed form gives %.17g", (long long)kSteps[i],
                          lr[i], want);
  }
  frugal_schedule_destroy(schedule);
  if (bad) return 1;
  printf("schedule: cosine lr at steps 0 99 100 550 999 1000 5000 = %.6e %.6e %.6e %.6e %.6e %.6e %.6e\n", lr[0], lr[1],
         lr[2], lr[3], lr[4], lr[5], lr[6]);
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Step 3: packing 256 sequences into rows of 2048 tokens                    */
/* ------------------------------------------------------------------------ */

enum { kSequences = 256, kMaxLen = 2048 };

/* Every check of step 3 on a finished plan; `lengths` are the inputs. */
static int check_plan(const frugal_pack_plan* plan, const int64_t* lengths) {
  frugal_pack_stats stats;
  frugal_pack_plan_view view;
  int seen[kSequences] = {0};
  int32_t* cu_seqlens = NULL;
  int64_t total = 0;
  size_t p, u, written = 0, units0;
  int bad = 0;

  memset(&stats, 0, sizeof stats);
  stats.struct_size = sizeof stats;
  memset(&view, 0, sizeof view);
  view.struct_size = sizeof view;
  if (failed(frugal_pack_plan_stats(plan, &stats), "frugal_pack_plan_stats") ||
      failed(frugal_pack_plan_view_get(plan, &view), "frugal_pack_plan_view_get"))
    return 1;
  for (u = 0; u < kSequences; ++u) total += lengths[u];

  for (u = 0; u < view.unit_count; ++u) {
    const int64_t id = view.sequence_ids[u];
    if (id < 0 || id >= kSequences)
      return tour_mismatch("pack: unit %lu names sequence %lld", (unsigned long)u, (long long)id);
    ++seen[id];
  }
  for (u = 0; u < kSequences; ++u)
    if (seen[u] != 1)
      return tour_mismatch("pack: sequence %lu appears %d times across the packs", (unsigned long)u, seen[u]);
  /* Tokens per pack from the caller's own lengths, not the plan's. */
  for (p = 0; p < view.pack_count; ++p) {
    int64_t tokens = 0;
    for (u = (size_t)view.pack_offsets[p]; u < (size_t)view.pack_offsets[p + 1]; ++u)
      tokens += lengths[view.sequence_ids[u]];
    if (tokens > kMaxLen)
      return tour_mismatch("pack: pack %lu holds %lld tokens, more than %d", (unsigned long)p, (long long)tokens,
                           kMaxLen);
  }
  if (stats.real_tokens != total)
    return tour_mismatch("pack: real_tokens is %lld; the lengths sum to %lld", (long long)stats.real_tokens,
                         (long long)total);
  if (!(stats.efficiency >= 0.95)) return tour_mismatch("pack: efficiency %.4f is below 0.95", stats.efficiency);

  /* Pack 0's cu_seqlens: 0, then a rise by each of its sequences' lengths. */
  if (view.pack_count == 0) return tour_mismatch("pack: the plan has no packs");
  units0 = (size_t)(view.pack_offsets[1] - view.pack_offsets[0]);
  cu_seqlens = malloc(sizeof(int32_t) * (units0 + 1));
  if (cu_seqlens == NULL) return tour_mismatch("pack: out of memory");
  if (failed(frugal_pack_plan_varlen(plan, 0, cu_seqlens, units0 + 1, &written, NULL), "frugal_pack_plan_varlen"))
    bad = 1;
  else if (written != units0 + 1)
    bad = tour_mismatch("pack: cu_seqlens of pack 0 has %lu entries, expected %lu", (unsigned long)written,
                        (unsigned long)(units0 + 1));
  else if (cu_seqlens[0] != 0)
    bad = tour_mismatch("pack: cu_seqlens of pack 0 starts at %d, not 0", cu_seqlens[0]);
  for (u = 0; !bad && u < units0; ++u) {
    const int64_t length = lengths[view.sequence_ids[(size_t)view.pack_offsets[0] + u]];
    if (cu_seqlens[u + 1] - cu_seqlens[u] != length)
      bad = tour_mismatch("pack: cu_seqlens of pack 0 rises by %d at entry %lu; its sequence has %lld tokens",
                          cu_seqlens[u + 1] - cu_seqlens[u], (unsigned long)u, (long long)length);
  }
  if (!bad && cu_seqlens[units0] != view.pack_tokens[0])
    bad = tour_mismatch("pack: cu_seqlens of pack 0 ends at %d; the pack holds %lld tokens", cu_seqlens[units0],
                        (long long)view.pack_tokens[0]);
  if (!bad)
    printf(
        "pack: %d sequences, %lld tokens in %lld packs of %d (efficiency %.4f, %s); pack 0: %lu sequences, %d tokens\n",
        kSequences, (long long)stats.real_tokens, (long long)stats.packs, kMaxLen, stats.efficiency, stats.method,
        (unsigned long)units0, cu_seqlens[units0]);
  free(cu_seqlens);
  return bad;
}

int tour_pack(frugal_context* context) {
  int64_t lengths[kSequences];
  uint64_t rng = 7;
  frugal_options* options = NULL;
  frugal_packer* packer = NULL;
  frugal_pack_plan* plan = NULL;
  int i, bad;

  for (i = 0; i < kSequences; ++i) lengths[i] = 1 + (int64_t)(next_random(&rng) % 1024);
  if (failed(frugal_options_create(&options), "frugal_options_create")) return 1;
  bad = failed(frugal_options_set_int(options, "max_len", kMaxLen), "set max_len") ||
        failed(frugal_packer_create(context, "packer_seq", options, &packer), "frugal_packer_create (packer_seq)") ||
        failed(frugal_packer_pack(packer, lengths, kSequences, &plan), "frugal_packer_pack");
  if (!bad) bad = check_plan(plan, lengths);
  frugal_pack_plan_destroy(plan);
  frugal_packer_destroy(packer);
  frugal_options_destroy(options);
  return bad;
}
