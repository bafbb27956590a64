/*
 * The tour of samples/README.md in C, through frugal/frugal.h only: load
 * the built-in plugins, then use every strategy family once (schedule,
 * packer, router, quantizer, scheduler with a policy, store and checkpoint
 * engine), checking each result against what the tour expects. Prints one
 * line per step; stops with a message and exit status 1 at the first
 * mismatch.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "frugal/frugal.h"
#include "sample_support.h"
#include "tour.h"

int tour_mismatch(const char* format, ...) {
  va_list args;
  fputs("mismatch: ", stderr);
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
  fputc('\n', stderr);
  return 1;
}

/* Whether a plugin called `name` is among the context's loaded plugins. */
static int plugin_loaded(const frugal_context* context, const char* name) {
  size_t i;
  for (i = 0; i < frugal_context_plugin_count(context); ++i) {
    frugal_plugin_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (failed(frugal_context_plugin_info(context, i, &info), "frugal_context_plugin_info")) return 0;
    if (strcmp(info.name, name) == 0) return 1;
  }
  return 0;
}

/* Lists why files failed to load, so a missing plugin explains itself. */
static void print_load_failures(const frugal_context* context) {
  size_t i;
  for (i = 0; i < frugal_context_load_failure_count(context); ++i) {
    frugal_load_failure_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (frugal_context_load_failure(context, i, &info) == NULL)
      fprintf(stderr, "  load failure: %s: %s\n", info.path, info.message);
  }
}

/* Step 1: ABI major 1, a context, the built-in plugins, all six present. */
static int tour_plugins(frugal_context** out) {
  static const char* const kRequired[] = {"packer_seq", "policy_cost", "quant_fp8",
                                          "router_moe", "schedule_lr", "store_fs"};
  const uint32_t abi = frugal_abi_version();
  frugal_context* context = NULL;
  size_t loaded = 0, i;

  if (FRUGAL_ABI_VERSION_GET_MAJOR(abi) != FRUGAL_ABI_VERSION_MAJOR)
    return tour_mismatch("plugins: libfrugal speaks ABI major %u; this tour is written for major %d",
                         (unsigned)FRUGAL_ABI_VERSION_GET_MAJOR(abi), FRUGAL_ABI_VERSION_MAJOR);
  if (failed(frugal_context_create(&context), "frugal_context_create")) return 1;
  *out = context;
  /* No directory and no environment variable needed: discovery finds the
     built-in plugin directory next to libfrugal. */
  if (failed(frugal_context_discover_plugins(context, 0, &loaded), "frugal_context_discover_plugins")) return 1;
  for (i = 0; i < sizeof kRequired / sizeof kRequired[0]; ++i) {
    if (!plugin_loaded(context, kRequired[i])) {
      print_load_failures(context);
      return tour_mismatch("plugins: '%s' is not loaded (%lu plugins found)", kRequired[i],
                           (unsigned long)frugal_context_plugin_count(context));
    }
  }
  printf(
      "plugins: frugal %s, ABI %u.%u, %lu loaded, all of packer_seq policy_cost quant_fp8 router_moe "
      "schedule_lr store_fs present\n",
      frugal_version_string(), (unsigned)FRUGAL_ABI_VERSION_GET_MAJOR(abi), (unsigned)FRUGAL_ABI_VERSION_GET_MINOR(abi),
      (unsigned long)loaded);
  return 0;
}

int main(void) {
  static int (*const kSteps[])(frugal_context*) = {tour_schedule, tour_pack,      tour_route,
                                                   tour_quantize, tour_scheduler, tour_checkpoint};
  frugal_context* context = NULL;
  size_t i;
  int bad = tour_plugins(&context);

  for (i = 0; !bad && i < sizeof kSteps / sizeof kSteps[0]; ++i) bad = kSteps[i](context);
  frugal_context_destroy(context);
  if (bad) {
    /* The loop has moved past the failed step: step i + 1, counting step 1 (plugins). */
    fprintf(stderr, "tour failed at step %lu of 7\n", (unsigned long)(i + 1));
    return 1;
  }
  printf("tour: all 7 steps passed\n");
  return 0;
}
