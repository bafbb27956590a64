/*
 * Tour steps 4-5 (samples/README.md): routing tokens to experts with the
 * topk_softmax router, and an FP8 (E4M3) quantize / dequantize round trip
 * with current scaling. Expectations are recomputed here from the inputs.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "frugal/frugal.h"
#include "sample_support.h"
#include "tour.h"

/* ------------------------------------------------------------------------ */
/* Step 4: topk_softmax routing of 64 tokens to 8 experts, top-2             */
/* ------------------------------------------------------------------------ */

enum { kTokens = 64, kExperts = 8, kK = 2, kSlots = kTokens * kK };

/* A plan for kTokens tokens: host arrays and the views route writes
   through. Token choice never needs more than T * k rows. */
typedef struct RoutePlan {
  int64_t slots_shape[2], experts1_shape[1], experts_shape[1], rows_shape[1], tokens1_shape[1], two_shape[1];
  int32_t expert_ids[kSlots];
  float weights[kSlots];
  uint8_t dropped[kSlots];
  int64_t slot_row[kSlots], expert_offsets[kExperts + 1], expert_demand[kExperts];
  int64_t row_token[kSlots], token_offsets[kTokens + 1], token_rows[kSlots];
  float row_weight[kSlots], mean_prob[kExperts], losses[2];
  frugal_tensor views[12];
  frugal_route_plan plan;
} RoutePlan;

static void route_plan_init(RoutePlan* p, int64_t max_rows) {
  memset(p, 0, sizeof *p);
  p->slots_shape[0] = kTokens;
  p->slots_shape[1] = kK;
  p->experts1_shape[0] = kExperts + 1;
  p->experts_shape[0] = kExperts;
  p->rows_shape[0] = max_rows;
  p->tokens1_shape[0] = kTokens + 1;
  p->two_shape[0] = 2;
  p->views[0] = host_tensor(p->expert_ids, FRUGAL_DTYPE_INT32, 2, p->slots_shape);
  p->views[1] = host_tensor(p->weights, FRUGAL_DTYPE_FLOAT32, 2, p->slots_shape);
  p->views[2] = host_tensor(p->dropped, FRUGAL_DTYPE_UINT8, 2, p->slots_shape);
  p->views[3] = host_tensor(p->slot_row, FRUGAL_DTYPE_INT64, 2, p->slots_shape);
  p->views[4] = host_tensor(p->expert_offsets, FRUGAL_DTYPE_INT64, 1, p->experts1_shape);
  p->views[5] = host_tensor(p->expert_demand, FRUGAL_DTYPE_INT64, 1, p->experts_shape);
  p->views[6] = host_tensor(p->row_token, FRUGAL_DTYPE_INT64, 1, p->rows_shape);
  p->views[7] = host_tensor(p->row_weight, FRUGAL_DTYPE_FLOAT32, 1, p->rows_shape);
  p->views[8] = host_tensor(p->token_offsets, FRUGAL_DTYPE_INT64, 1, p->tokens1_shape);
  p->views[9] = host_tensor(p->token_rows, FRUGAL_DTYPE_INT64, 1, p->rows_shape);
  p->views[10] = host_tensor(p->mean_prob, FRUGAL_DTYPE_FLOAT32, 1, p->experts_shape);
  p->views[11] = host_tensor(p->losses, FRUGAL_DTYPE_FLOAT32, 1, p->two_shape);
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
}

/* Every check of step 4 on a routed plan. */
static int check_routing(const float* logits, const RoutePlan* p) {
  int64_t load_sum = 0;
  int t, e, s;

  for (s = 0; s < kSlots; ++s)
    if (p->dropped[s]) return tour_mismatch("route: token %d's choice %d was dropped", s / kK, s % kK);
  for (t = 0; t < kTokens; ++t) {
    const float* row = logits + t * kExperts;
    const int32_t* ids = p->expert_ids + t * kK;
    const float* w = p->weights + t * kK;
    int best = 0, second = -1;
    double e_best, e_second;
    for (e = 1; e < kExperts; ++e) {
      if (row[e] > row[best]) {
        second = best;
        best = e;
      } else if (second < 0 || row[e] > row[second]) {
        second = e;
      }
    }
    if (ids[0] != best || ids[1] != second)
      return tour_mismatch("route: token %d went to experts %d and %d; its two largest logits are experts %d and %d", t,
                           ids[0], ids[1], best, second);
    /* Softmax restricted to the two chosen experts (renormalize=true). */
    e_best = 1.0;
    e_second = exp((double)row[second] - (double)row[best]);
    if (fabs((double)w[0] + (double)w[1] - 1.0) > 1e-5)
      return tour_mismatch("route: token %d's weights sum to %.7f, not 1", t, (double)w[0] + (double)w[1]);
    if (fabs((double)w[0] - e_best / (e_best + e_second)) > 1e-5 ||
        fabs((double)w[1] - e_second / (e_best + e_second)) > 1e-5)
      return tour_mismatch("route: token %d's weights are %.7f %.7f; the softmax of its two logits gives %.7f %.7f", t,
                           (double)w[0], (double)w[1], e_best / (e_best + e_second), e_second / (e_best + e_second));
  }
  for (e = 0; e < kExperts; ++e) load_sum += p->expert_demand[e];
  if (load_sum != kSlots) return tour_mismatch("route: expert loads sum to %lld, not %d", (long long)load_sum, kSlots);
  printf("route: %d tokens to %d experts, top-%d, none dropped, loads", kTokens, kExperts, kK);
  for (e = 0; e < kExperts; ++e) printf(" %lld", (long long)p->expert_demand[e]);
  printf(" (sum %lld)\n", (long long)load_sum);
  return 0;
}

int tour_route(frugal_context* context) {
  static const int64_t kLogitsShape[2] = {kTokens, kExperts};
  float logits[kTokens * kExperts];
  RoutePlan plan;
  uint64_t rng = 11;
  frugal_options* options = NULL;
  frugal_router* router = NULL;
  frugal_route_shape shape;
  frugal_tensor logits_t;
  frugal_route_args args;
  int i, bad;

  for (i = 0; i < kTokens * kExperts; ++i) logits[i] = uniform(&rng) * 4.0f;
  if (failed(frugal_options_create(&options), "frugal_options_create")) return 1;
  bad = failed(frugal_options_set_int(options, "experts", kExperts), "set experts") ||
        failed(frugal_options_set_int(options, "k", kK), "set k") ||
        failed(frugal_options_set_double(options, "capacity_factor", 8.0), "set capacity_factor") ||
        /* topk_softmax's default is renormalize=false (weights are the full
           softmax's probabilities); the tour wants the two weights to sum to 1. */
        failed(frugal_options_set_bool(options, "renormalize", 1), "set renormalize") ||
        failed(frugal_router_create(context, "topk_softmax", options, &router), "frugal_router_create (topk_softmax)");
  frugal_options_destroy(options);
  memset(&shape, 0, sizeof shape);
  shape.struct_size = sizeof shape;
  if (!bad) bad = failed(frugal_router_plan_shape(router, kTokens, &shape), "frugal_router_plan_shape");
  if (!bad && shape.max_rows > kSlots)
    bad = tour_mismatch("route: the plan asks for %lld rows; token choice needs at most %d", (long long)shape.max_rows,
                        kSlots);
  if (!bad) {
    route_plan_init(&plan, shape.max_rows);
    logits_t = host_tensor(logits, FRUGAL_DTYPE_FLOAT32, 2, kLogitsShape);
    memset(&args, 0, sizeof args);
    args.struct_size = sizeof args;
    args.logits = &logits_t;
    args.plan = &plan.plan;
    bad = failed(frugal_router_route(router, &args), "frugal_router_route") || check_routing(logits, &plan);
  }
  frugal_router_destroy(router);
  return bad;
}

/* ------------------------------------------------------------------------ */
/* Step 5: E4M3 with current scaling, quantize then dequantize               */
/* ------------------------------------------------------------------------ */

enum { kRows = 32, kCols = 64, kElements = kRows * kCols };

/* The quantized tensor's scales, laid out as the quantizer says. */
static frugal_quant_meta meta_for(const frugal_quant_layout* layout, const frugal_tensor* scale,
                                  const frugal_tensor* scale_inv) {
  frugal_quant_meta meta;
  memset(&meta, 0, sizeof meta);
  meta.struct_size = sizeof meta;
  meta.scaling_mode = layout->scaling_mode;
  meta.block_rows = layout->block_rows;
  meta.block_cols = layout->block_cols;
  meta.scale = scale;
  meta.scale_inv = scale_inv;
  return meta;
}

/* Every check of step 5: the scale, then each element's round trip. */
static int check_round_trip(const float* x, const float* y, float scale) {
  const double e4m3_max = 448.0;
  double amax = 0.0, worst = 0.0;
  int i;
  for (i = 0; i < kElements; ++i) amax = fmax(amax, fabs((double)x[i]));
  if (fabs(amax * scale - e4m3_max) > 1e-6 * e4m3_max)
    return tour_mismatch("quantize: the scale %.9g maps amax %.9g to %.9g, not 448", (double)scale, amax, amax * scale);
  for (i = 0; i < kElements; ++i) {
    /* Half a step of E4M3: 3 mantissa bits (2^-4 relative), or half the
       subnormal step 2^-9 brought back to the input's scale. */
    const double error = fabs((double)x[i] - (double)y[i]);
    const double bound = fabs((double)x[i]) / 16.0 + amax / e4m3_max * 0x1p-10;
    if (error > bound)
      return tour_mismatch("quantize: element %d: %.9g came back as %.9g (error %.3g > bound %.3g)", i, (double)x[i],
                           (double)y[i], error, bound);
    worst = fmax(worst, error);
  }
  printf("quantize: e4m3 current scaling of [%d, %d]: amax %.6f, scale %.6f, largest round-trip error %.6f\n", kRows,
         kCols, amax, (double)scale, worst);
  return 0;
}

int tour_quantize(frugal_context* context) {
  static const int64_t kShape[2] = {kRows, kCols};
  static const int64_t kOne[1] = {1};
  float x[kElements], y[kElements];
  uint8_t codes[kElements];
  float scale = 0.0f, scale_inv = 0.0f;
  uint64_t rng = 13;
  frugal_options* options = NULL;
  frugal_quantizer* quantizer = NULL;
  frugal_quant_layout layout;
  int i, bad;

  for (i = 0; i < kElements; ++i) x[i] = uniform(&rng) * 3.0f;
  if (failed(frugal_options_create(&options), "frugal_options_create")) return 1;
  bad =
      failed(frugal_options_set_string(options, "format", "e4m3"), "set format") ||
      failed(frugal_options_set_string(options, "recipe", "current"), "set recipe") ||
      failed(frugal_quantizer_create(context, "quant_fp8", options, &quantizer), "frugal_quantizer_create (quant_fp8)");
  frugal_options_destroy(options);
  memset(&layout, 0, sizeof layout);
  layout.struct_size = sizeof layout;
  if (!bad) bad = failed(frugal_quantizer_layout(quantizer, &layout), "frugal_quantizer_layout");
  if (!bad) {
    const frugal_tensor scale_t = host_tensor(&scale, FRUGAL_DTYPE_FLOAT32, 1, kOne);
    const frugal_tensor scale_inv_t = host_tensor(&scale_inv, FRUGAL_DTYPE_FLOAT32, 1, kOne);
    const frugal_quant_meta meta = meta_for(&layout, &scale_t, &scale_inv_t);
    frugal_tensor in = host_tensor(x, FRUGAL_DTYPE_FLOAT32, 2, kShape);
    frugal_tensor out = host_tensor(codes, layout.dtype, 2, kShape);
    frugal_tensor back = host_tensor(y, FRUGAL_DTYPE_FLOAT32, 2, kShape);
    frugal_quantize_args args;
    frugal_dequantize_args dequantize;
    out.quant = &meta;
    memset(&args, 0, sizeof args);
    args.struct_size = sizeof args;
    args.input = &in;
    args.output = &out;
    memset(&dequantize, 0, sizeof dequantize);
    dequantize.struct_size = sizeof dequantize;
    dequantize.input = &out;
    dequantize.output = &back;
    bad = failed(frugal_quantizer_quantize(quantizer, &args), "frugal_quantizer_quantize") ||
          failed(frugal_quantizer_dequantize(quantizer, &dequantize), "frugal_quantizer_dequantize") ||
          check_round_trip(x, y, scale);
  }
  frugal_quantizer_destroy(quantizer);
  return bad;
}
