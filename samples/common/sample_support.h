/*
 * What every C sample host needs besides frugal.h: reporting an error,
 * a reproducible random stream, and a view of a compact host array. Kept
 * tiny and header-only so each sample still reads as one program.
 */
#ifndef FRUGAL_SAMPLE_SUPPORT_H_
#define FRUGAL_SAMPLE_SUPPORT_H_

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "frugal/frugal.h"

/* Prints and frees an error; returns 1 when there was one. */
static inline int failed(frugal_error* error, const char* what) {
  if (error == NULL) return 0;
  fprintf(stderr, "%s failed: [%s] %s\n", what, frugal_error_code_name(frugal_error_code(error)),
          frugal_error_message(error));
  frugal_error_destroy(error);
  return 1;
}

/* A 64-bit linear congruential stream: the same numbers on every machine. */
static inline uint64_t next_random(uint64_t* state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return *state >> 33;
}

/* A uniform value in [-1, 1). */
static inline float uniform(uint64_t* state) { return (float)((double)next_random(state) / 2147483648.0 * 2.0 - 1.0); }

/* A view of a compact, row-major host array (strides NULL). */
static inline frugal_tensor host_tensor(void* data, int32_t dtype, int32_t ndim, const int64_t* shape) {
  frugal_tensor t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.data = data;
  t.dtype = dtype;
  t.ndim = ndim;
  t.device.type = FRUGAL_DEVICE_CPU;
  t.shape = shape;
  return t;
}

#endif /* FRUGAL_SAMPLE_SUPPORT_H_ */
