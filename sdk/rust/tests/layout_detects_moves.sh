#!/bin/sh
# Shows that the layout test catches a moved field: copies the public
# headers, swaps two fields of frugal_pack_stats (units and sequences, both
# int64_t, so only their offsets change), builds the probe from the copy
# and expects tests/layout.rs to fail naming the moved field. Exits 0 only
# then. Run from anywhere; uses its own target directory so the normal
# build is not invalidated.
set -eu
crate=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -R "$crate/../../abi/include" "$scratch/include"
header="$scratch/include/frugal/packer.h"
# Swap the two declaration lines (each with its doc comment above it).
awk '
  /^  int64_t units;/     { units = prev "\n" $0; held = 1; prev = ""; next }
  /^  int64_t sequences;/ && held { print prev; print $0; print units; prev = ""; held = 0; next }
  { if (prev != "") print prev; prev = $0 }
  END { if (prev != "") print prev }
' "$header" > "$header.new"
mv "$header.new" "$header"
grep -q "int64_t sequences;" "$header" || { echo "layout_detects_moves: could not edit packer.h" >&2; exit 1; }
if ! awk '/int64_t sequences;/ { s = NR } /int64_t units;/ { u = NR } END { exit !(s && u && s < u) }' "$header"; then
  echo "layout_detects_moves: the field swap did not take; packer.h changed shape?" >&2
  exit 1
fi
log="$scratch/layout.log"
# FRUGAL_INCLUDE_DIR picks the headers the layout test's probe is built
# from; the library still comes from FRUGAL_LIB_DIR or pkg-config.
if (cd "$crate" && FRUGAL_INCLUDE_DIR="$scratch/include" CARGO_TARGET_DIR="$crate/target/layout-mutant" \
      cargo test --offline --quiet --test layout) >"$log" 2>&1; then
  echo "layout_detects_moves: FAILED: the layout test passed although frugal_pack_stats.units moved" >&2
  exit 1
fi
if grep -q "offset frugal_pack_stats.units\|offset frugal_pack_stats.sequences" "$log"; then
  echo "layout_detects_moves: ok: $(grep -o 'offset frugal_pack_stats\.[a-z_]*: C [0-9]* but Rust [0-9]*' "$log" | head -1)"
else
  echo "layout_detects_moves: FAILED: the layout test failed without naming the moved field:" >&2
  cat "$log" >&2
  exit 1
fi
