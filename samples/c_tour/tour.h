/*
 * The tour of samples/README.md, split by what each step is about:
 *   main.c                      step 1 (plugins) and the driver that stops
 *                               at the first mismatch;
 *   schedule_and_pack.c         steps 2-3: the LR schedule, packing;
 *   route_and_quantize.c        steps 4-5: MoE routing, FP8 quantization;
 *   scheduler_and_checkpoint.c  steps 6-7, what keeps a run going: the
 *                               scheduler's decisions and ledger, and a
 *                               checkpoint round trip.
 * Every step returns 0 when all its checks hold, 1 after printing why not.
 */
#ifndef FRUGAL_SAMPLE_TOUR_H_
#define FRUGAL_SAMPLE_TOUR_H_

#include "frugal/frugal.h"

/* Prints "mismatch: <formatted text>" to stderr; returns 1, so a step can
   `return tour_mismatch(...)`. */
int tour_mismatch(const char* format, ...);

/* The options of the tour's cosine schedule (steps 2 and 6): lr 3e-4,
   min_lr 3e-5, warmup_steps 100, total_steps 1000. Returns 1 on error. */
int tour_cosine_options(frugal_options** out);

int tour_schedule(frugal_context* context);
int tour_pack(frugal_context* context);
int tour_route(frugal_context* context);
int tour_quantize(frugal_context* context);
int tour_scheduler(frugal_context* context);
int tour_checkpoint(frugal_context* context);

#endif /* FRUGAL_SAMPLE_TOUR_H_ */
