/*
 * A C host running the routing of one mixture-of-experts layer with
 * frugal/router.h, the way a training step uses it:
 *   - a DeepSeek-V3 router (64 experts, top-4, 8 groups of which 4 are kept)
 *     routes 4096 tokens whose logits favour the first experts;
 *   - permute gathers each token's hidden vector into its experts' rows, a
 *     stand-in "expert" scales its rows by (e + 1), and combine sums them
 *     back with the gate weights; the sample recomputes every output value
 *     from the plan (slot by slot) and checks it exactly;
 *   - every step it reads the load statistics and feeds the experts' loads
 *     to the bias update (gamma 0.002): max/mean load must fall from over 2
 *     at the skewed start to under 1.3 on average over steps 40-59 (256
 *     assignments per expert leave about 1.15-1.25 of sampling noise even
 *     when balanced), with under 1% of assignments dropped at the end;
 *   - the bias is exported and imported into a second router, which then
 *     routes identically (what a checkpoint restore needs).
 * Exits 0 only if every check holds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frugal/frugal.h"
#include "sample_support.h"

enum { kTokens = 4096, kExperts = 64, kK = 4, kHidden = 32, kSteps = 60 };

/* The plan's arrays and the views the route call writes through. */
typedef struct Plan {
  frugal_route_shape shape;
  int64_t slots_shape[2], experts1_shape[1], experts_shape[1], rows_shape[1], tokens1_shape[1], two_shape[1];
  int32_t* expert_ids;
  float* weights;
  uint8_t* dropped;
  int64_t *slot_row, *expert_offsets, *expert_demand, *row_token, *token_offsets, *token_rows;
  float *row_weight, *mean_prob, *losses;
  frugal_tensor views[12];
  frugal_route_plan plan;
} Plan;

static int plan_init(Plan* p, frugal_router* router) {
  int i = 0;
  memset(p, 0, sizeof *p);
  p->shape.struct_size = sizeof p->shape;
  if (failed(frugal_router_plan_shape(router, kTokens, &p->shape), "frugal_router_plan_shape")) return 1;
  p->slots_shape[0] = kTokens;
  p->slots_shape[1] = kK;
  p->experts1_shape[0] = kExperts + 1;
  p->experts_shape[0] = kExperts;
  p->rows_shape[0] = p->shape.max_rows;
  p->tokens1_shape[0] = kTokens + 1;
  p->two_shape[0] = 2;
  p->expert_ids = malloc(sizeof(int32_t) * kTokens * kK);
  p->weights = malloc(sizeof(float) * kTokens * kK);
  p->dropped = malloc(kTokens * kK);
  p->slot_row = malloc(sizeof(int64_t) * kTokens * kK);
  p->expert_offsets = malloc(sizeof(int64_t) * (kExperts + 1));
  p->expert_demand = malloc(sizeof(int64_t) * kExperts);
  p->row_token = malloc(sizeof(int64_t) * (size_t)p->shape.max_rows);
  p->row_weight = malloc(sizeof(float) * (size_t)p->shape.max_rows);
  p->token_offsets = malloc(sizeof(int64_t) * (kTokens + 1));
  p->token_rows = malloc(sizeof(int64_t) * (size_t)p->shape.max_rows);
  p->mean_prob = malloc(sizeof(float) * kExperts);
  p->losses = malloc(sizeof(float) * 2);
  p->views[i++] = host_tensor(p->expert_ids, FRUGAL_DTYPE_INT32, 2, p->slots_shape);
  p->views[i++] = host_tensor(p->weights, FRUGAL_DTYPE_FLOAT32, 2, p->slots_shape);
  p->views[i++] = host_tensor(p->dropped, FRUGAL_DTYPE_UINT8, 2, p->slots_shape);
  p->views[i++] = host_tensor(p->slot_row, FRUGAL_DTYPE_INT64, 2, p->slots_shape);
  p->views[i++] = host_tensor(p->expert_offsets, FRUGAL_DTYPE_INT64, 1, p->experts1_shape);
  p->views[i++] = host_tensor(p->expert_demand, FRUGAL_DTYPE_INT64, 1, p->experts_shape);
  p->views[i++] = host_tensor(p->row_token, FRUGAL_DTYPE_INT64, 1, p->rows_shape);
  p->views[i++] = host_tensor(p->row_weight, FRUGAL_DTYPE_FLOAT32, 1, p->rows_shape);
  p->views[i++] = host_tensor(p->token_offsets, FRUGAL_DTYPE_INT64, 1, p->tokens1_shape);
  p->views[i++] = host_tensor(p->token_rows, FRUGAL_DTYPE_INT64, 1, p->rows_shape);
  p->views[i++] = host_tensor(p->mean_prob, FRUGAL_DTYPE_FLOAT32, 1, p->experts_shape);
  p->views[i++] = host_tensor(p->losses, FRUGAL_DTYPE_FLOAT32, 1, p->two_shape);
  p->plan.struct_size = sizeof p->plan;
  p->plan.expert_ids = &p->views[0];
  p->plan.weights = &p->views[1];
  p->plan.dropped = &p->views[2];
  p->plan.slot_row = &p->views[3];
  p->plan.expert_offsets = &p->views[4];
  p->plan.expert_demand = &p->views[5];
  p->plan.row_token = &p->views[6];
  p->plan.row_weight = &p->views[7];
  p->plan.token_offsets = &p->views[8];
  p->plan.token_rows = &p->views[9];
  p->plan.mean_prob = &p->views[10];
  p->plan.losses = &p->views[11];
  return p->expert_ids == NULL || p->token_rows == NULL || p->losses == NULL;
}

static void plan_free(Plan* p) {
  free(p->expert_ids);
  free(p->weights);
  free(p->dropped);
  free(p->slot_row);
  free(p->expert_offsets);
  free(p->expert_demand);
  free(p->row_token);
  free(p->row_weight);
  free(p->token_offsets);
  free(p->token_rows);
  free(p->mean_prob);
  free(p->losses);
}

/* Fresh logits for a step: uniform noise plus +1.5 on the first 16 experts. */
static void make_logits(float* logits, uint64_t* rng) {
  int t, e;
  for (t = 0; t < kTokens; ++t)
    for (e = 0; e < kExperts; ++e) logits[t * kExperts + e] = 2.0f * uniform(rng) + (e < 16 ? 1.5f : 0.0f);
}

static int route(frugal_router* router, float* logits, Plan* p) {
  static const int64_t shape[2] = {kTokens, kExperts};
  frugal_tensor logits_t = host_tensor(logits, FRUGAL_DTYPE_FLOAT32, 2, shape);
  frugal_route_args args;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.logits = &logits_t;
  args.plan = &p->plan;
  return failed(frugal_router_route(router, &args), "frugal_router_route");
}

/* permute -> each expert scales its rows by (e + 1) -> combine; then every
   output value is recomputed from the plan, slot by slot. */
static int run_layer(frugal_router* router, Plan* p, uint64_t* rng) {
  int64_t x_shape[2] = {kTokens, kHidden}, rows_shape[2];
  float *x = malloc(sizeof(float) * kTokens * kHidden), *y = malloc(sizeof(float) * kTokens * kHidden);
  float* rows = malloc(sizeof(float) * (size_t)p->shape.max_rows * kHidden);
  frugal_tensor x_t, y_t, rows_t;
  frugal_route_move_args move;
  int64_t t, e, r, h, bad = 0;
  int j;
  rows_shape[0] = p->shape.max_rows;
  rows_shape[1] = kHidden;
  for (t = 0; t < kTokens * kHidden; ++t) x[t] = uniform(rng);
  x_t = host_tensor(x, FRUGAL_DTYPE_FLOAT32, 2, x_shape);
  y_t = host_tensor(y, FRUGAL_DTYPE_FLOAT32, 2, x_shape);
  rows_t = host_tensor(rows, FRUGAL_DTYPE_FLOAT32, 2, rows_shape);
  memset(&move, 0, sizeof move);
  move.struct_size = sizeof move;
  move.plan = &p->plan;
  move.input = &x_t;
  move.output = &rows_t;
  if (failed(frugal_router_permute(router, &move), "frugal_router_permute")) return 1;
  for (e = 0; e < kExperts; ++e)
    for (r = p->expert_offsets[e]; r < p->expert_offsets[e + 1]; ++r)
      for (h = 0; h < kHidden; ++h) rows[r * kHidden + h] *= (float)(e + 1);
  move.input = &rows_t;
  move.output = &y_t;
  if (failed(frugal_router_combine(router, &move), "frugal_router_combine")) return 1;
  for (t = 0; t < kTokens; ++t) {
    for (h = 0; h < kHidden; ++h) {
      float want = 0.0f;
      for (j = 0; j < kK; ++j) {
        const int64_t s = t * kK + j;
        if (p->dropped[s]) continue;
        want += p->weights[s] * (x[t * kHidden + h] * (float)(p->expert_ids[s] + 1));
      }
      bad += y[t * kHidden + h] != want;
    }
  }
  free(x);
  free(y);
  free(rows);
  if (bad != 0) fprintf(stderr, "combine: %lld values differ from the slot-by-slot sum\n", (long long)bad);
  return bad != 0;
}

static int update(frugal_router* router, int64_t* load) {
  static const int64_t shape[1] = {kExperts};
  frugal_tensor load_t = host_tensor(load, FRUGAL_DTYPE_INT64, 1, shape);
  return failed(frugal_router_update(router, &load_t), "frugal_router_update");
}

int main(void) {
  frugal_context* context = NULL;
  frugal_options* options = NULL;
  frugal_router *router = NULL, *restored = NULL;
  frugal_route_stats stats;
  Plan plan, again;
  uint64_t rng = 7;
  float* logits = malloc(sizeof(float) * kTokens * kExperts);
  double first = 0.0, settled = 0.0, last_dropped = 0.0;
  unsigned char* state = NULL;
  size_t state_size = 0;
  int step, same, ok = 1;

  if (failed(frugal_context_create(&context), "frugal_context_create")) return 1;
  if (failed(frugal_context_discover_plugins(context, 0, NULL), "discover")) return 1;
  if (failed(frugal_options_create(&options), "frugal_options_create")) return 1;
  if (failed(frugal_options_set_int(options, "experts", kExperts), "set experts") ||
      failed(frugal_options_set_int(options, "k", kK), "set k") ||
      failed(frugal_options_set_int(options, "groups", 8), "set groups") ||
      failed(frugal_options_set_int(options, "topk_groups", 4), "set topk_groups") ||
      failed(frugal_options_set_double(options, "gamma", 0.002), "set gamma") ||
      failed(frugal_options_set_double(options, "capacity_factor", 1.25), "set capacity_factor"))
    return 1;
  if (failed(frugal_router_create(context, "deepseek_v3", options, &router), "frugal_router_create")) return 1;
  if (plan_init(&plan, router)) return 1;
  printf("plan for %d tokens: capacity %lld rows per expert, %lld rows at most\n", kTokens,
         (long long)plan.shape.capacity, (long long)plan.shape.max_rows);

  for (step = 0; step < kSteps; ++step) {
    make_logits(logits, &rng);
    if (route(router, logits, &plan)) return 1;
    memset(&stats, 0, sizeof stats);
    stats.struct_size = sizeof stats;
    if (failed(frugal_router_stats(router, &plan.plan, &stats), "frugal_router_stats")) return 1;
    if (step == 0) {
      first = stats.max_over_mean;
      if (run_layer(router, &plan, &rng)) ok = 0;
    }
    if (step >= kSteps - 20) settled += stats.max_over_mean / 20.0;
    last_dropped = stats.dropped_fraction;
    if (step == 0 || step == kSteps - 1)
      printf("step %2d: max/mean load %.3f, dropped %.1f%% of %lld assignments\n", step, stats.max_over_mean,
             100.0 * stats.dropped_fraction, (long long)stats.assignments);
    if (update(router, plan.expert_demand)) return 1;
  }
  printf("max/mean load over the last 20 steps: %.3f on average\n", settled);
  if (!(first > 2.0 && settled < 1.3 && last_dropped < 0.01)) {
    fprintf(stderr, "balancing: max/mean %.3f -> %.3f, %.2f%% dropped; expected > 2 -> < 1.3, < 1%%\n", first, settled,
            100.0 * last_dropped);
    ok = 0;
  }

  /* Checkpoint the bias and restore it into a fresh router. */
  if (failed(frugal_router_export_state(router, NULL, 0, &state_size), "export_state (size)")) return 1;
  state = malloc(state_size);
  if (failed(frugal_router_export_state(router, state, state_size, &state_size), "export_state")) return 1;
  if (failed(frugal_router_create(context, "deepseek_v3", options, &restored), "create (restore)") ||
      failed(frugal_router_import_state(restored, state, state_size), "import_state"))
    return 1;
  if (plan_init(&again, restored)) return 1;
  make_logits(logits, &rng);
  if (route(router, logits, &plan) || route(restored, logits, &again)) return 1;
  same = memcmp(plan.expert_ids, again.expert_ids, sizeof(int32_t) * kTokens * kK) == 0 &&
         memcmp(plan.weights, again.weights, sizeof(float) * kTokens * kK) == 0;
  printf("state: %zu bytes; the restored router routes identically: %s\n", state_size, same ? "yes" : "no");
  if (!same) ok = 0;

  free(state);
  free(logits);
  plan_free(&plan);
  plan_free(&again);
  frugal_router_destroy(router);
  frugal_router_destroy(restored);
  frugal_options_destroy(options);
  frugal_context_destroy(context);
  if (ok) printf("all router checks passed\n");
  return ok ? 0 : 1;
}
