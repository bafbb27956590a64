// What the core knows about each strategy kind's vtable: the minimum size a
// plugin must provide, the full size this core understands, and which slots
// are required. Adding a kind (or a slot in a new minor) is one table entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace frugal {

struct VtableSlot {
  size_t offset;     // byte offset of a function pointer in the vtable
  const char* name;  // its field name, for error messages
};

struct StrategyKindSpec {
  int32_t kind;
  const char* name;  // "schedule"
  size_t min_size;   // vtables smaller than this are refused
  size_t full_size;  // sizeof the vtable struct this core was built with
  std::span<const VtableSlot> required;
};

// The spec for `kind`, or nullptr when this core has no vtable for it yet
// (strategies of such kinds are skipped with a warning, not refused).
const StrategyKindSpec* find_kind_spec(int32_t kind);

// "schedule", ... for any kind in the enum (even without a spec), else "unknown".
const char* kind_name(int32_t kind);

// Parses "schedule" etc.; returns 0 when unknown.
int32_t kind_from_name(const char* name);

}  // namespace frugal
