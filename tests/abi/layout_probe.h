/* One row of the layout table: a struct's size (field "") or a field's offset. */
#ifndef FRUGAL_TEST_LAYOUT_PROBE_H_
#define FRUGAL_TEST_LAYOUT_PROBE_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct frugal_layout_row {
  const char* type;
  const char* field;
  size_t value;
} frugal_layout_row;

/* The rows as compiled by the C compiler. */
const frugal_layout_row* frugal_c_layout(size_t* count);

#ifdef __cplusplus
}
#endif

#endif
