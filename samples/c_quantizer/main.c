/*
 * A C host training-loop sketch with frugal/quantizer.h: one FP8 (E4M3)
 * quantizer with delayed scaling follows a weight whose magnitude grows
 * every step, the way quantization-aware training uses it:
 *   - each step quantizes the weight (codes + scale_inv + amax) and writes
 *     the fake-quantized copy the forward pass would use;
 *   - the scale of step t comes from the amaxes of steps before t, with a
 *     margin of one power of two of headroom, so the sample checks it
 *     against its own running maximum, checks every fake value against the
 *     E4M3 rounding bound, and checks that the headroom absorbs the weight's
 *     growth of 1.5x per step: nothing is clipped (clipped values would get
 *     a zero straight-through gradient);
 *   - the quantizer's state is exported and imported into a second one,
 *     which then quantizes bit-identically (what a checkpoint restore needs);
 *   - dequantize reproduces the fake copy exactly;
 *   - a dynamic loss scaler backs off on an overflow and grows back.
 * Exits 0 only if every check holds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frugal/frugal.h"
#include "sample_support.h"

enum { kRows = 64, kCols = 256, kSteps = 6, kN = kRows * kCols };
static const float kE4M3Max = 448.0f;

/* Per-tensor (delayed) scales travelling with codes: scale_inv, optional amax. */
static frugal_quant_meta delayed_meta(const frugal_tensor* scale_inv, const frugal_tensor* amax) {
  frugal_quant_meta meta;
  memset(&meta, 0, sizeof meta);
  meta.struct_size = sizeof meta;
  meta.scaling_mode = FRUGAL_SCALING_DELAYED;
  meta.scale_inv = scale_inv;
  meta.amax = amax;
  return meta;
}

static int quantize(frugal_quantizer* q, float* w, uint8_t* codes, float* scale_inv, float* amax, float* fake,
                    uint32_t flags) {
  static const int64_t shape[2] = {kRows, kCols};
  static const int64_t one[1] = {1};
  frugal_tensor in = host_tensor(w, FRUGAL_DTYPE_FLOAT32, 2, shape);
  frugal_tensor out = host_tensor(codes, FRUGAL_DTYPE_FLOAT8_E4M3FN, 2, shape);
  frugal_tensor fake_t = host_tensor(fake, FRUGAL_DTYPE_FLOAT32, 2, shape);
  frugal_tensor scale_inv_t = host_tensor(scale_inv, FRUGAL_DTYPE_FLOAT32, 1, one);
  frugal_tensor amax_t = host_tensor(amax, FRUGAL_DTYPE_FLOAT32, 1, one);
  frugal_quant_meta meta = delayed_meta(&scale_inv_t, &amax_t);
  frugal_quantize_args args;
  out.quant = &meta;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.input = &in;
  args.output = &out;
  args.fake = &fake_t;
  args.flags = flags;
  return failed(frugal_quantizer_quantize(q, &args), "frugal_quantizer_quantize");
}

int main(void) {
  static float w[kN], fake[kN], fake2[kN], deq[kN];
  static uint8_t codes[kN], codes2[kN];
  static unsigned char state_blob[1 << 16];
  frugal_context* context = NULL;
  frugal_options* options = NULL;
  frugal_quantizer* q = NULL;
  frugal_quantizer* restored = NULL;
  frugal_loss_scaler* scaler = NULL;
  uint64_t rng = 7;
  float running_max = 0.0f;
  size_t state_size = 0;
  int errors = 0, step, i;

  if (failed(frugal_context_create(&context), "frugal_context_create")) return 1;
  if (failed(frugal_context_discover_plugins(context, 0, NULL), "discover")) return 1;
  if (failed(frugal_options_create(&options), "frugal_options_create")) return 1;
  if (failed(frugal_options_set_string(options, "format", "e4m3"), "set format") ||
      failed(frugal_options_set_string(options, "recipe", "delayed"), "set recipe") ||
      failed(frugal_options_set_int(options, "history", 16), "set history") ||
      failed(frugal_options_set_int(options, "margin", 1), "set margin"))
    return 1;
  if (failed(frugal_quantizer_create(context, "quant_fp8", options, &q), "frugal_quantizer_create")) return 1;

  for (step = 0; step < kSteps; ++step) {
    const float magnitude = (float)pow(1.5, step);
    float scale_inv = 0.0f, amax = 0.0f, expect_amax = 0.0f;
    int clipped = 0;
    for (i = 0; i < kN; ++i) {
      w[i] = uniform(&rng) * magnitude;
      if (fabsf(w[i]) > expect_amax) expect_amax = fabsf(w[i]);
    }
    if (quantize(q, w, codes, &scale_inv, &amax, fake, 0)) return 1;
    /* The scale used now comes from earlier steps: 448 * 2^-margin / max(previous amaxes), or 1 at the start. */
    {
      const float expect_scale_inv = running_max > 0.0f ? running_max * 2.0f / kE4M3Max : 1.0f;
      if (fabsf(scale_inv - expect_scale_inv) > 1e-6f * expect_scale_inv) ++errors;
    }
    if (amax != expect_amax) ++errors;
    for (i = 0; i < kN; ++i) {
      const float scaled = fabsf(w[i]) / scale_inv;
      if (scaled > kE4M3Max) {
        ++clipped; /* saturated to +-448: the straight-through gradient is 0 here */
        if (fabsf(fake[i]) != kE4M3Max * scale_inv) ++errors;
        continue;
      }
      /* E4M3 keeps 3 mantissa bits: round-to-nearest is within 2^-4 relative,
         or half the subnormal spacing (2^-10 after scaling) near zero. */
      if (fabsf(fake[i] - w[i]) > fmaxf(fabsf(w[i]) * 0.0625f, scale_inv * 0.0009765625f)) ++errors;
    }
    if (clipped != 0) ++errors;
    printf("step %d: |w| <= %7.4f, scale_inv %.6f, %d of %d values clipped\n", step, (double)amax, (double)scale_inv,
           clipped, kN);
    if (amax > running_max) running_max = amax;
  }

  /* Checkpoint the recipe state and restore it into a fresh quantizer. */
  if (failed(frugal_quantizer_export_state(q, state_blob, sizeof state_blob, &state_size), "export_state")) return 1;
  if (failed(frugal_quantizer_create(context, "quant_fp8", options, &restored), "create (restore)") ||
      failed(frugal_quantizer_import_state(restored, state_blob, state_size), "import_state"))
    return 1;
  {
    float s1 = 0, s2 = 0, a1 = 0, a2 = 0;
    if (quantize(q, w, codes, &s1, &a1, fake, FRUGAL_QUANTIZE_FREEZE_SCALE) ||
        quantize(restored, w, codes2, &s2, &a2, fake2, FRUGAL_QUANTIZE_FREEZE_SCALE))
      return 1;
    if (s1 != s2 || memcmp(codes, codes2, sizeof codes) != 0 || memcmp(fake, fake2, sizeof fake) != 0) ++errors;
    printf("state: %lu bytes; the restored quantizer reproduces scale_inv %.6f and all %d codes\n",
           (unsigned long)state_size, (double)s2, kN);
    /* Dequantize gives back exactly the fake-quantized values. */
    {
      static const int64_t shape[2] = {kRows, kCols};
      static const int64_t one[1] = {1};
      frugal_tensor in = host_tensor(codes, FRUGAL_DTYPE_FLOAT8_E4M3FN, 2, shape);
      frugal_tensor out = host_tensor(deq, FRUGAL_DTYPE_FLOAT32, 2, shape);
      frugal_tensor scale_inv_t = host_tensor(&s1, FRUGAL_DTYPE_FLOAT32, 1, one);
      frugal_quant_meta meta = delayed_meta(&scale_inv_t, NULL);
      in.quant = &meta;
      frugal_dequantize_args dq;
      memset(&dq, 0, sizeof dq);
      dq.struct_size = sizeof dq;
      dq.input = &in;
      dq.output = &out;
      if (failed(frugal_quantizer_dequantize(q, &dq), "frugal_quantizer_dequantize")) return 1;
      if (memcmp(deq, fake, sizeof deq) != 0) ++errors;
    }
  }

  /* Loss scaling: an overflow halves the scale and skips the step. */
  {
    int32_t apply = -1;
    if (failed(frugal_loss_scaler_create(NULL, &scaler), "frugal_loss_scaler_create")) return 1;
    if (failed(frugal_loss_scaler_update(scaler, 1, &apply), "loss scaler update")) return 1;
    if (apply != 0 || frugal_loss_scaler_scale(scaler) != 32768.0) ++errors;
    printf("loss scaler: overflow -> skip the step, scale 65536 -> %.0f\n", frugal_loss_scaler_scale(scaler));
  }

  frugal_loss_scaler_destroy(scaler);
  frugal_quantizer_destroy(restored);
  frugal_quantizer_destroy(q);
  frugal_options_destroy(options);
  frugal_context_destroy(context);
  if (errors != 0) {
    fprintf(stderr, "%d check(s) failed\n", errors);
    return 1;
  }
  printf("all checks passed\n");
  return 0;
}
