#!/bin/sh
# GPU checks, for a machine with an NVIDIA GPU (Hopper: sm_90). Builds with
# CUDA required, runs the whole suite plus the checks that need a device,
# and prints a short table. Budget: well under 8 minutes on 16 cores.
#
# Device paths checked: the CUDA runtime probe (frugal_cuda_device_count)
# and the checkpoint engine's device -> pinned host snapshot and
# host -> device restore (tests/device/ckpt_cuda_check.cpp). Kernel checks
# join this script as the quantizer and router issues add CUDA code.
set -u
cd "$(dirname "$0")/../.."
dir=build-device
rows=""
status=0
row() { rows="$rows$(printf '%-40s %-6s %s' "$1" "$2" "$3")\n"; [ "$2" = PASS ] || status=1; }

if cmake -S . -B "$dir" -DFRUGAL_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFRUGAL_WERROR=ON >/dev/null &&
   cmake --build "$dir" -j"$(nproc)" >/dev/null; then
  row "build (CUDA ON, sm_90)" PASS ""
else
  row "build (CUDA ON, sm_90)" FAIL "see cmake output"
  printf "$rows"; exit 1
fi

if ctest --test-dir "$dir" -j"$(nproc)" --timeout 300 >"$dir/ctest.log" 2>&1; then
  row "ctest (all CPU tests)" PASS "$(grep -o '[0-9]* tests passed' "$dir/ctest.log" | head -1)"
else
  row "ctest (all CPU tests)" FAIL "see $dir/ctest.log"
fi

version=$("$dir/bin/frugal" version)
devices=$(printf '%s\n' "$version" | sed -n 's/.*built with CUDA, \([0-9]*\) device.*/\1/p')
if [ -n "$devices" ] && [ "$devices" -ge 1 ]; then
  row "cuda runtime probe" PASS "$devices device(s)"
else
  row "cuda runtime probe" FAIL "$(printf '%s' "$version" | tail -1)"
fi

scratch=$(mktemp -d)
for size in 268435456 1073741824; do
  if line=$("$dir/bin/ckpt_cuda_check" "$scratch/s$size" "$size" 2>&1); then
    row "ckpt snapshot/restore $((size >> 20)) MiB" PASS "$(printf '%s' "$line" | cut -d' ' -f3-)"
  else
    row "ckpt snapshot/restore $((size >> 20)) MiB" FAIL "$line"
  fi
done
rm -rf "$scratch"

printf '%-40s %-6s %s\n' check result detail
printf "$rows"
exit $status
