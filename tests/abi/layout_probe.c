/* The ABI layout as a C99 compiler sees it: one row per struct and field,
   in the order of layout_fields.def. Compared with the C++ view by
   test_layout.cpp. */
#include <stddef.h>

#include "frugal/frugal.h"
#include "frugal/packer_vtable.h"
#include "frugal/plugin.h"
#include "frugal/policy_vtable.h"
#include "frugal/quantizer_vtable.h"
#include "frugal/router_vtable.h"
#include "frugal/schedule_vtable.h"
#include "frugal/store_vtable.h"
#include "layout_probe.h"

#define FRUGAL_STRUCT(type) {#type, "", sizeof(type)},
#define FRUGAL_FIELD(type, field) {#type, #field, offsetof(type, field)},
static const frugal_layout_row kRows[] = {
#include "layout_fields.def"
};
#undef FRUGAL_STRUCT
#undef FRUGAL_FIELD

const frugal_layout_row* frugal_c_layout(size_t* count) {
  *count = sizeof(kRows) / sizeof(kRows[0]);
  return kRows;
}
