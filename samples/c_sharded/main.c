/*
 * A data-parallel job's checkpoints across ranks, through frugal/frugal.h
 * alone (the comm is the "mpi" plugin; the host never calls MPI itself):
 *
 *   mpirun -np 4 sample_c_sharded DIR train    # steps 1..3, preempted at 3
 *   mpirun -np 3 sample_c_sharded DIR resume   # resumes on three ranks
 *
 * train: every rank holds its rows of a [60, 8] weight and of its Adam
 * moment (full-only), split along dim 0. Step 1 saves a heartbeat, step 2
 * a full checkpoint. At step 3 only rank 2 hears of a preemption; the
 * per-step agreement (frugal_ckpt_preemption_agree) tells every rank, and
 * all take the emergency save together. Each rank's metadata is its own
 * data-loader cursor.
 *
 * resume: three ranks (another split) restore the newest checkpoint, the
 * step-3 emergency heartbeat: the weights of step 3, the moments of the
 * step-2 full checkpoint, and every saving rank's cursor. Every element and
 * cursor is checked; the program exits 0 only when all match.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frugal/frugal.h"
#include "sample_support.h"

enum { kRows = 60, kCols = 8, kTrainRanks = 4, kPreemptedStep = 3 };

/* The values every element holds after `step`: any process can compute
   them, so the resume checks what it restored without trusting frugal. */
static float weight_at(int64_t element, uint64_t step) { return (float)(element % 97) * 0.5f + (float)step; }
static float moment_at(int64_t element, uint64_t step) { return (float)(element % 13) * 0.25f - (float)step; }
/* Rank r's data-loader cursor after `step` (its metadata). */
static uint64_t cursor_of(int rank, uint64_t step) { return 1000u * (uint64_t)rank + 64u * step; }

struct job {
  frugal_context* context;
  frugal_comm* comm;
  frugal_store* store;
  frugal_ckpt_engine* engine;
  int rank, size;
  int64_t first_row, shape[2];
  float* weights;
  float* moments;
};

static void close_job(struct job* job) {
  frugal_ckpt_engine_destroy(job->engine);
  frugal_store_destroy(job->store);
  frugal_comm_destroy(job->comm);
  frugal_context_destroy(job->context);
  free(job->weights);
  free(job->moments);
}

/* The comm, the store on DIR, the engine on both, and this rank's rows
   (the first kRows % size ranks one longer) registered as slices. */
static int open_job(struct job* job, const char* dir) {
  frugal_options *store_options = NULL, *engine_options = NULL;
  frugal_ckpt_slice slice;
  frugal_tensor view;
  const int64_t global[2] = {kRows, kCols};
  int64_t offsets[2] = {0, 0}, base, extra;
  size_t loaded = 0;
  int bad;

  memset(job, 0, sizeof *job);
  if (failed(frugal_context_create(&job->context), "frugal_context_create") ||
      failed(frugal_context_discover_plugins(job->context, 0, &loaded), "frugal_context_discover_plugins") ||
      failed(frugal_comm_create(job->context, "mpi", NULL, &job->comm), "frugal_comm_create(mpi)"))
    return 1;
  job->rank = frugal_comm_rank(job->comm);
  job->size = frugal_comm_size(job->comm);
  bad = failed(frugal_options_create(&store_options), "frugal_options_create") ||
        failed(frugal_options_set_string(store_options, "root", dir), "set root") ||
        failed(frugal_store_create(job->context, "fs", store_options, &job->store), "frugal_store_create") ||
        failed(frugal_options_create(&engine_options), "frugal_options_create") ||
        failed(frugal_options_set_comm(engine_options, "comm", job->comm), "set comm") ||
        /* Collective: every rank creates its engine. */
        failed(frugal_ckpt_engine_create(job->store, engine_options, &job->engine), "frugal_ckpt_engine_create");
  frugal_options_destroy(store_options);
  frugal_options_destroy(engine_options);
  if (bad) return 1;

  base = kRows / job->size;
  extra = kRows % job->size;
  job->first_row = job->rank * base + (job->rank < extra ? job->rank : extra);
  job->shape[0] = base + (job->rank < extra ? 1 : 0);
  job->shape[1] = kCols;
  offsets[0] = job->first_row;
  job->weights = calloc((size_t)(job->shape[0] * kCols) + 1, sizeof(float));
  job->moments = calloc((size_t)(job->shape[0] * kCols) + 1, sizeof(float));
  if (job->weights == NULL || job->moments == NULL) {
    fprintf(stderr, "rank %d: out of memory\n", job->rank);
    return 1;
  }

  memset(&slice, 0, sizeof slice);
  slice.struct_size = sizeof slice;
  slice.ndim = 2;
  slice.global_shape = global;
  slice.offsets = offsets;
  view = host_tensor(job->weights, FRUGAL_DTYPE_FLOAT32, 2, job->shape);
  if (failed(frugal_ckpt_register_slice(job->engine, "layer/w", &view, &slice, 0), "register_slice(layer/w)")) return 1;
  /* Optimizer moments are saved in full checkpoints only. */
  view = host_tensor(job->moments, FRUGAL_DTYPE_FLOAT32, 2, job->shape);
  return failed(frugal_ckpt_register_slice(job->engine, "layer/adam_m", &view, &slice, FRUGAL_CKPT_FULL),
                "register_slice(layer/adam_m)");
}

/* This rank's rows as they stand after `step`. */
static void set_step(struct job* job, uint64_t step) {
  int64_t i;
  for (i = 0; i < job->shape[0] * kCols; ++i) {
    job->weights[i] = weight_at(job->first_row * kCols + i, step);
    job->moments[i] = moment_at(job->first_row * kCols + i, step);
  }
}

static frugal_ckpt_save_args save_args(int32_t kind, uint64_t step, const uint64_t* cursor) {
  frugal_ckpt_save_args args;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.kind = kind;
  args.flags = FRUGAL_CKPT_SAVE_WAIT;
  args.step = step;
  args.metadata = cursor;
  args.metadata_size = sizeof *cursor;
  return args;
}

static int train(const char* dir) {
  struct job job;
  uint64_t step, cursor;
  int bad = open_job(&job, dir);
  if (!bad && job.size != kTrainRanks) {
    fprintf(stderr, "train runs on %d ranks (mpirun -np %d), not %d\n", kTrainRanks, kTrainRanks, job.size);
    bad = 1;
  }
  frugal_preemption_clear();
  for (step = 1; !bad; ++step) {
    int32_t preempted = 0;
    set_step(&job, step); /* the step's update */
    cursor = cursor_of(job.rank, step);
    /* Only rank 2's node is told (a SIGTERM, a cloud notice). */
    if (step == kPreemptedStep && job.rank == 2) frugal_preemption_notify();
    bad = failed(frugal_ckpt_preemption_agree(job.engine, &preempted), "frugal_ckpt_preemption_agree");
    if (bad) break;
    if (preempted) {
      frugal_ckpt_emergency_result result;
      const frugal_ckpt_save_args args = save_args(FRUGAL_CKPT_HEARTBEAT, step, &cursor);
      memset(&result, 0, sizeof result);
      result.struct_size = sizeof result;
      bad = failed(frugal_ckpt_emergency_save(job.engine, &args, 25.0, &result), "frugal_ckpt_emergency_save");
      if (!bad && (step != kPreemptedStep || !result.committed)) {
        fprintf(stderr, "rank %d: the emergency save at step %llu %s\n", job.rank, (unsigned long long)step,
                result.committed ? "came at the wrong step" : "did not commit");
        bad = 1;
      }
      if (!bad)
        printf("rank %d: preempted at step %llu, emergency checkpoint %s\n", job.rank, (unsigned long long)step,
               result.name);
      break;
    } else {
      const frugal_ckpt_save_args args = save_args(step == 2 ? FRUGAL_CKPT_FULL : FRUGAL_CKPT_HEARTBEAT, step, &cursor);
      bad = failed(frugal_ckpt_save(job.engine, &args, NULL), "frugal_ckpt_save");
    }
  }
  frugal_preemption_clear();
  close_job(&job);
  return bad;
}

static int resume(const char* dir) {
  struct job job;
  frugal_ckpt_info info;
  uint64_t mine = 0, saved_by[kTrainRanks];
  size_t size = 0;
  int64_t i;
  uint32_t r;
  int bad = open_job(&job, dir);
  if (bad) return 1;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  /* Collective: every rank restores the same checkpoint, its own rows. */
  bad = failed(frugal_ckpt_restore(job.engine, NULL, FRUGAL_CKPT_ALL_KINDS, &mine, sizeof mine, &size, &info),
               "frugal_ckpt_restore");
  if (!bad && (info.step != kPreemptedStep || !info.emergency || info.world_size != kTrainRanks ||
               info.not_restored_count != 0)) {
    fprintf(stderr, "rank %d: restored step %llu (emergency %d) of a job of %u ranks, %u not restored\n", job.rank,
            (unsigned long long)info.step, info.emergency, info.world_size, info.not_restored_count);
    bad = 1;
  }
  for (i = 0; !bad && i < job.shape[0] * kCols; ++i) {
    const int64_t element = job.first_row * kCols + i;
    /* Weights from the heartbeat; moments, full-only, from the step-2 full checkpoint. */
    if (job.weights[i] != weight_at(element, kPreemptedStep) || job.moments[i] != moment_at(element, 2)) {
      fprintf(stderr, "rank %d: element %lld holds %g / %g\n", job.rank, (long long)element, job.weights[i],
              job.moments[i]);
      bad = 1;
    }
  }
  /* Another number of ranks than saved: restore gave rank 0's metadata;
     every saving rank's cursor is read back to share out the data. */
  if (!bad && (size != sizeof mine || mine != cursor_of(0, kPreemptedStep))) {
    fprintf(stderr, "rank %d: the restored metadata is not rank 0's cursor\n", job.rank);
    bad = 1;
  }
  for (r = 0; !bad && r < info.world_size; ++r) {
    bad = failed(frugal_ckpt_restored_metadata(job.engine, r, &saved_by[r], sizeof saved_by[r], &size),
                 "frugal_ckpt_restored_metadata");
    if (!bad && (size != sizeof saved_by[r] || saved_by[r] != cursor_of((int)r, kPreemptedStep))) {
      fprintf(stderr, "rank %d: saving rank %u's cursor is %llu\n", job.rank, r, (unsigned long long)saved_by[r]);
      bad = 1;
    }
  }
  if (!bad)
    printf("rank %d of %d: resumed %s (step %llu, written by %u ranks), moments from %s, %lld rows checked\n", job.rank,
           job.size, info.name, (unsigned long long)info.step, info.world_size, info.full_source,
           (long long)job.shape[0]);
  close_job(&job);
  return bad;
}

int main(int argc, char** argv) {
  if (argc != 3 || (strcmp(argv[2], "train") != 0 && strcmp(argv[2], "resume") != 0)) {
    fprintf(stderr, "usage: mpirun -np 4 %s DIR train, then mpirun -np 3 %s DIR resume\n", argv[0], argv[0]);
    return 2;
  }
  return strcmp(argv[2], "train") == 0 ? train(argv[1]) : resume(argv[1]);
}
