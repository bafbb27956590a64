/*
 * Tour steps 6-7 (samples/README.md), what keeps a run going: the run
 * scheduler's decisions and cost ledger over 30 telemetry records, and a
 * full checkpoint saved through the fs store and restored into zeroed
 * tensors, with a loss scaler's state saved and restored by the engine
 * beside them (no container of the host's own in the metadata).
 */
/* mkdtemp, nftw and P_tmpdir are POSIX (X/Open), outside strict C99. */
#define _XOPEN_SOURCE 700

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frugal/frugal.h"
#include "sample_support.h"
#include "tour.h"

/* ------------------------------------------------------------------------ */
/* Step 6: the scheduler with the cosine schedule and checkpoint_cadence     */
/* ------------------------------------------------------------------------ */

enum { kRecords = 30, kNodes = 2 };
static const double kPricePerNodeHour = 1.10;

/* Record i (1..30): 30 s of job clock and 10 steps of 2048-token rows per
   record, a slowly falling loss, 2 spot nodes at $1.10 per node-hour. */
static frugal_telemetry telemetry_record(int i) {
  frugal_telemetry t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.nodes = kNodes;
  t.step = 10 * i;
  t.tokens = (int64_t)10 * i * 2048;
  t.loss = 4.0 - 0.05 * i;
  t.wall_time_s = 30.0 * i;
  t.price_per_node_hour = kPricePerNodeHour;
  t.resource = FRUGAL_RESOURCE_SPOT;
  return t;
}

/* The ledger's checks: money is conserved and matches the price paid. */
static int check_ledger(const frugal_cost_ledger* ledger) {
  /* The first record's interval starts at clock 0: 30 records x 30 s. */
  const double expected = 900.0 * kNodes * kPricePerNodeHour / 3600.0;
  const double by_use = ledger->productive_dollars + ledger->stall_dollars + ledger->lost_dollars;
  const double by_capacity = ledger->spot_dollars + ledger->reserved_dollars;
  if (fabs(ledger->dollars - by_use) > 1e-9)
    return tour_mismatch("scheduler: ledger dollars %.12f != productive + stall + lost %.12f", ledger->dollars, by_use);
  if (fabs(ledger->dollars - by_capacity) > 1e-9)
    return tour_mismatch("scheduler: ledger dollars %.12f != spot + reserved %.12f", ledger->dollars, by_capacity);
  if (fabs(ledger->dollars - expected) > 1e-9)
    return tour_mismatch("scheduler: ledger dollars %.12f; 900 s x 2 nodes x $1.10/h is %.12f", ledger->dollars,
                         expected);
  return 0;
}

/* Feeds the 30 records; checks each decision's lr against `schedule`. */
static int run_scheduler(frugal_scheduler* scheduler, frugal_schedule* schedule) {
  frugal_decision decision;
  frugal_cost_ledger ledger;
  double last_lr = 0.0;
  int i, heartbeats = 0;

  for (i = 1; i <= kRecords; ++i) {
    const frugal_telemetry t = telemetry_record(i);
    double want = 0.0;
    memset(&decision, 0, sizeof decision);
    decision.struct_size = sizeof decision;
    if (failed(frugal_scheduler_step(scheduler, &t, &decision), "frugal_scheduler_step") ||
        failed(frugal_schedule_lr(schedule, t.step, &want), "frugal_schedule_lr"))
      return 1;
    if (decision.lr != want)
      return tour_mismatch("scheduler: record %d (step %lld): lr %.17g; the schedule gives %.17g", i, (long long)t.step,
                           decision.lr, want);
    if (decision.checkpoint == FRUGAL_CKPT_HEARTBEAT) ++heartbeats;
    last_lr = decision.lr;
  }
  if (heartbeats == 0) return tour_mismatch("scheduler: no decision asked for a heartbeat checkpoint");
  memset(&ledger, 0, sizeof ledger);
  ledger.struct_size = sizeof ledger;
  if (failed(frugal_scheduler_ledger(scheduler, &ledger), "frugal_scheduler_ledger") || check_ledger(&ledger)) return 1;
  printf(
      "scheduler: %d records, lr %.6e at step %d, %d heartbeat(s) asked, $%.6f paid = productive %.6f + stall "
      "%.6f + lost %.6f\n",
      kRecords, last_lr, 10 * kRecords, heartbeats, ledger.dollars, ledger.productive_dollars, ledger.stall_dollars,
      ledger.lost_dollars);
  return 0;
}

int tour_scheduler(frugal_context* context) {
  static const char* const kPolicies[] = {"checkpoint_cadence"};
  frugal_options *schedule_options = NULL, *cadence_options = NULL;
  frugal_schedule* schedule = NULL;
  frugal_scheduler* scheduler = NULL;
  frugal_scheduler_config config;
  const frugal_options* policy_options[1];
  int bad;

  if (tour_cosine_options(&schedule_options)) return 1;
  bad = failed(frugal_options_create(&cadence_options), "frugal_options_create") ||
        failed(frugal_options_set_double(cadence_options, "heartbeat_interval_s", 60.0), "set heartbeat_interval_s");
  /* The same schedule on its own, to check the scheduler's lr against. */
  if (!bad)
    bad = failed(frugal_schedule_create(context, "cosine", schedule_options, &schedule), "frugal_schedule_create");
  if (!bad) {
    policy_options[0] = cadence_options;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.schedule = "cosine";
    config.schedule_options = schedule_options;
    config.policies = kPolicies;
    config.policy_options = policy_options;
    config.policy_count = 1;
    bad = failed(frugal_scheduler_create(context, &config, &scheduler), "frugal_scheduler_create") ||
          run_scheduler(scheduler, schedule);
  }
  frugal_scheduler_destroy(scheduler);
  frugal_schedule_destroy(schedule);
  frugal_options_destroy(cadence_options);
  frugal_options_destroy(schedule_options);
  return bad;
}

/* ------------------------------------------------------------------------ */
/* Step 7: save a full checkpoint, zero the state, restore it                */
/* ------------------------------------------------------------------------ */

enum { kWeights = 1024, kCursor = 4 };
static const char kMetadata[] = "step=100"; /* stored without its NUL */

/* The training state the checkpoint holds, and a copy to compare with. */
typedef struct TrainingState {
  float weights[kWeights];
  int64_t cursor[kCursor];
} TrainingState;

static int remove_entry(const char* path, const struct stat* info, int type, struct FTW* where) {
  (void)info;
  (void)type;
  (void)where;
  return remove(path);
}

/* Removes the temporary directory and everything the store wrote in it. */
static void remove_tree(const char* root) {
  if (nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
    fprintf(stderr, "warning: could not remove the temporary directory %s\n", root);
}

/* Two overflows, then clean steps: the scaler's scale and counters move. */
static int step_scaler(frugal_loss_scaler* scaler, int steps) {
  int i;
  for (i = 0; i < steps; ++i)
    if (failed(frugal_loss_scaler_update(scaler, i < 2, NULL), "frugal_loss_scaler_update")) return 1;
  return 0;
}

/* Registers the two tensors and the scaler, saves step 100 and waits until
   it persisted; writes the checkpoint's name into `name`. */
static int save(frugal_ckpt_engine* engine, TrainingState* state, frugal_loss_scaler* scaler, char* name) {
  static const int64_t kWeightsShape[1] = {kWeights};
  static const int64_t kCursorShape[1] = {kCursor};
  const frugal_tensor weights = host_tensor(state->weights, FRUGAL_DTYPE_FLOAT32, 1, kWeightsShape);
  const frugal_tensor cursor = host_tensor(state->cursor, FRUGAL_DTYPE_INT64, 1, kCursorShape);
  frugal_ckpt_save_args args;
  frugal_ckpt_save_result saved;
  frugal_ckpt_persist_result persisted;

  if (failed(frugal_ckpt_register(engine, "weights", &weights, 0), "frugal_ckpt_register (weights)") ||
      failed(frugal_ckpt_register(engine, "cursor", &cursor, 0), "frugal_ckpt_register (cursor)") ||
      failed(frugal_ckpt_register_loss_scaler(engine, "loss_scaler", scaler, 0), "frugal_ckpt_register_loss_scaler"))
    return 1;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.kind = FRUGAL_CKPT_FULL;
  args.step = 100;
  args.metadata = kMetadata;
  args.metadata_size = sizeof kMetadata - 1;
  memset(&saved, 0, sizeof saved);
  saved.struct_size = sizeof saved;
  memset(&persisted, 0, sizeof persisted);
  persisted.struct_size = sizeof persisted;
  /* The save returns once the state is snapshotted; the persist runs in the
     background until frugal_ckpt_wait. */
  if (failed(frugal_ckpt_save(engine, &args, &saved), "frugal_ckpt_save") ||
      failed(frugal_ckpt_wait(engine, &persisted), "frugal_ckpt_wait"))
    return 1;
  if (strcmp(persisted.name, saved.name) != 0)
    return tour_mismatch("checkpoint: saved '%s' but '%s' persisted", saved.name, persisted.name);
  memcpy(name, saved.name, FRUGAL_CKPT_NAME_CAPACITY);
  return 0;
}

/* The scaler's scale and counters, for comparisons. */
static int scaler_state(const frugal_loss_scaler* scaler, frugal_loss_scaler_status* out) {
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  return failed(frugal_loss_scaler_get_status(scaler, out), "frugal_loss_scaler_get_status");
}

/* Zeroes the state, moves the scaler on, restores the newest checkpoint
   and checks that both came back as saved. */
static int restore_and_check(frugal_ckpt_engine* engine, TrainingState* state, const TrainingState* expected,
                             frugal_loss_scaler* scaler, const frugal_loss_scaler_status* saved_scaler,
                             const char* saved_name) {
  char metadata[64];
  size_t metadata_size = 0;
  frugal_ckpt_info info;
  frugal_loss_scaler_status restored;

  memset(state, 0, sizeof *state);
  if (step_scaler(scaler, 5)) return 1;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  if (failed(frugal_ckpt_restore(engine, NULL, FRUGAL_CKPT_ALL_KINDS, metadata, sizeof metadata, &metadata_size, &info),
             "frugal_ckpt_restore"))
    return 1;
  if (strcmp(info.name, saved_name) != 0)
    return tour_mismatch("checkpoint: restored '%s'; the save named '%s'", info.name, saved_name);
  if (info.step != 100) return tour_mismatch("checkpoint: restored step %llu, not 100", (unsigned long long)info.step);
  if (memcmp(state->weights, expected->weights, sizeof state->weights) != 0)
    return tour_mismatch("checkpoint: the restored weights differ from the saved ones");
  if (memcmp(state->cursor, expected->cursor, sizeof state->cursor) != 0)
    return tour_mismatch("checkpoint: the restored cursor differs from {1, 2, 3, 4}");
  if (metadata_size != sizeof kMetadata - 1 || memcmp(metadata, kMetadata, sizeof kMetadata - 1) != 0)
    return tour_mismatch("checkpoint: the restored metadata is %llu bytes, not \"%s\"",
                         (unsigned long long)metadata_size, kMetadata);
  if (info.not_restored_count != 0)
    return tour_mismatch("checkpoint: %u registered items were not restored", (unsigned)info.not_restored_count);
  if (scaler_state(scaler, &restored)) return 1;
  if (restored.scale != saved_scaler->scale || restored.clean_steps != saved_scaler->clean_steps ||
      restored.skipped_steps != saved_scaler->skipped_steps)
    return tour_mismatch(
        "checkpoint: the loss scaler came back as scale %g, %lld clean, %lld skipped; saved %g, "
        "%lld, %lld",
        restored.scale, (long long)restored.clean_steps, (long long)restored.skipped_steps, saved_scaler->scale,
        (long long)saved_scaler->clean_steps, (long long)saved_scaler->skipped_steps);
  printf("checkpoint: saved and restored %s: step %llu, %lu tensor bytes back, metadata \"%.*s\", loss scale %g\n",
         info.name, (unsigned long long)info.step, (unsigned long)sizeof *state, (int)metadata_size, metadata,
         restored.scale);
  return 0;
}

/* Opens the fs store on `root`, then saves and restores through an engine. */
static int round_trip(frugal_context* context, const char* root) {
  TrainingState state, expected;
  char name[FRUGAL_CKPT_NAME_CAPACITY];
  uint64_t rng = 17;
  frugal_options* options = NULL;
  frugal_store* store = NULL;
  frugal_ckpt_engine* engine = NULL;
  frugal_loss_scaler* scaler = NULL;
  frugal_loss_scaler_status saved_scaler;
  int i, bad;

  for (i = 0; i < kWeights; ++i) state.weights[i] = uniform(&rng);
  for (i = 0; i < kCursor; ++i) state.cursor[i] = i + 1;
  expected = state;
  if (failed(frugal_options_create(&options), "frugal_options_create")) return 1;
  bad = failed(frugal_options_set_string(options, "root", root), "set root") ||
        failed(frugal_store_create(context, "fs", options, &store), "frugal_store_create (fs)") ||
        failed(frugal_ckpt_engine_create(store, NULL, &engine), "frugal_ckpt_engine_create") ||
        failed(frugal_loss_scaler_create(NULL, &scaler), "frugal_loss_scaler_create") || step_scaler(scaler, 3) ||
        scaler_state(scaler, &saved_scaler) || save(engine, &state, scaler, name) ||
        restore_and_check(engine, &state, &expected, scaler, &saved_scaler, name);
  /* The engine keeps the store open until it is destroyed itself; the
     scaler, registered with it, must outlive it. */
  frugal_ckpt_engine_destroy(engine);
  frugal_loss_scaler_destroy(scaler);
  frugal_store_destroy(store);
  frugal_options_destroy(options);
  return bad;
}

int tour_checkpoint(frugal_context* context) {
  const char* base = getenv("TMPDIR");
  char root[4096];
  int bad;

  if (base == NULL || base[0] == '\0') base = P_tmpdir;
  if (snprintf(root, sizeof root, "%s/frugal-c-tour-XXXXXX", base) >= (int)sizeof root)
    return tour_mismatch("checkpoint: the temporary directory's path is too long");
  if (mkdtemp(root) == NULL) {
    perror("mkdtemp");
    return tour_mismatch("checkpoint: could not create a temporary directory under %s", base);
  }
  bad = round_trip(context, root);
  remove_tree(root);
  return bad;
}
