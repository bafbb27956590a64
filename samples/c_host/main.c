/*
 * A C host embedding frugal through the C header only: it discovers the
 * plugins (the built-in directory next to libfrugal, found without any
 * environment variable), creates the "cosine" LR schedule from the
 * schedule_lr plugin, and checks every value against the formula computed
 * here independently. Exits 0 only if all values match.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "frugal/frugal.h"
#include "sample_support.h"

/* The schedule the plugin promises, written out here on its own. */
static double expected_lr(long step, double peak, double floor_lr, long warmup, long total) {
  const double pi = 3.14159265358979323846;
  if (step < warmup) return peak * (double)(step + 1) / (double)warmup;
  if (step >= total) return floor_lr;
  return floor_lr + (peak - floor_lr) * 0.5 * (1.0 + cos(pi * (double)(step - warmup) / (double)(total - warmup)));
}

int main(void) {
  const double peak = 3e-4, floor_lr = 3e-5;
  const long warmup = 100, total = 1000;
  frugal_context* context = NULL;
  frugal_options* options = NULL;
  frugal_schedule* schedule = NULL;
  size_t loaded = 0;
  long step;
  int mismatches = 0;
  uint32_t abi = frugal_abi_version();

  if (FRUGAL_ABI_VERSION_GET_MAJOR(abi) != FRUGAL_ABI_VERSION_MAJOR) {
    fprintf(stderr, "libfrugal speaks ABI major %u; this sample was built for %d\n",
            (unsigned)FRUGAL_ABI_VERSION_GET_MAJOR(abi), FRUGAL_ABI_VERSION_MAJOR);
    return 1;
  }
  if (failed(frugal_context_create(&context), "frugal_context_create")) return 1;
  if (failed(frugal_context_discover_plugins(context, 0, &loaded), "discover")) return 1;
  printf("frugal %s: %lu plugin(s) loaded\n", frugal_version_string(), (unsigned long)loaded);

  if (failed(frugal_options_create(&options), "frugal_options_create")) return 1;
  if (failed(frugal_options_set_double(options, "lr", peak), "set lr") ||
      failed(frugal_options_set_double(options, "min_lr", floor_lr), "set min_lr") ||
      failed(frugal_options_set_int(options, "warmup_steps", warmup), "set warmup_steps") ||
      failed(frugal_options_set_int(options, "total_steps", total), "set total_steps"))
    return 1;
  if (failed(frugal_schedule_create(context, "cosine", options, &schedule), "frugal_schedule_create")) return 1;
  frugal_options_destroy(options);

  for (step = 0; step <= total + 10; ++step) {
    double lr = 0.0;
    const double want = expected_lr(step, peak, floor_lr, warmup, total);
    if (failed(frugal_schedule_lr(schedule, step, &lr), "frugal_schedule_lr")) return 1;
    if (fabs(lr - want) > 1e-12 * peak) {
      fprintf(stderr, "step %ld: lr %.17g, expected %.17g\n", step, lr, want);
      ++mismatches;
    }
    if (step == 0 || step == warmup - 1 || step == 550 || step == total) printf("step %4ld  lr %.6e\n", step, lr);
  }
  {
    /* A negative step is the plugin's to refuse, with OUT_OF_RANGE. */
    double lr = 0.0;
    frugal_error* error = frugal_schedule_lr(schedule, -1, &lr);
    if (frugal_error_code(error) != FRUGAL_ERR_OUT_OF_RANGE) {
      fprintf(stderr, "step -1: expected OUT_OF_RANGE, got %s\n", frugal_error_code_name(frugal_error_code(error)));
      ++mismatches;
    }
    frugal_error_destroy(error);
  }
  frugal_schedule_destroy(schedule);
  frugal_context_destroy(context);
  if (mismatches != 0) {
    fprintf(stderr, "%d mismatch(es)\n", mismatches);
    return 1;
  }
  printf("all %ld schedule values match the cosine formula\n", total + 11);
  return 0;
}
