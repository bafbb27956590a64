#!/bin/sh
# GPU checks, for a machine with an NVIDIA GPU (Hopper: sm_90). Builds with
# CUDA required, runs the whole suite plus the checks that need a device,
# and prints a short table. Budget: well under 8 minutes on 16 cores.
#
# Device paths checked:
#   - the CUDA runtime probe (frugal_cuda_device_count);
#   - the checkpoint engine's device -> pinned host snapshot and host ->
#     device restore (tests/device/ckpt_cuda_check.cpp);
#   - quant_fp8's CUDA kernels (tests/device/quant_cuda_check.cpp): every
#     recipe x fp8 format x input dtype x {plain, fake, output_t} byte for
#     byte against the CPU path through the C API, dequantize likewise, and
#     the cuBLASLt FP8 GEMM against an fp64 reference (8192^3 sampled);
#     about a minute; its log is build-device/quant_cuda_check.log;
#   - quant_fp8's speed (bench/quant/quant_gpu_bench.cu): delayed
#     cast+amax and cast+transpose+amax against a device-to-device copy
#     (target >= 85 %), FP8 against bf16 GEMM at 8192^3 (target >= 1.5x);
#     a missed target is SLOW and fails the run like a FAIL; log in
#     build-device/quant_gpu_bench.log;
#   - router_moe's CUDA path (tests/device/router_cuda_check.cpp): every
#     router x logit dtype x drop policy, from one token to 65536 x 256 x 8,
#     deepseek_v3 with a bias (update, import_state): every plan tensor byte
#     for byte against the CPU path through the C API, then permute and
#     combine (fp32, bf16, padded rows) likewise; under a minute; log in
#     build-device/router_cuda_check.log;
#   - router_moe's speed (bench/router/router_gpu_bench.cu) at T = 64K,
#     E = 256, k = 8, H = 7168 bf16: permute and combine against a
#     device-to-device copy (target >= 60 %, else SLOW), the route times
#     as detail; log in build-device/router_gpu_bench.log;
#   - comm_nccl's collectives (tests/device/comm_nccl_check.cpp), one rank:
#     every collective and dtype on device tensors byte for byte against
#     the CPU result of the `local` comm, the ways to join, split, a
#     caller's stream, a create that misses its deadline (a watchdog turns
#     a hang into a FAIL); seconds; log in build-device/comm_nccl_check.log.
set -u
cd "$(dirname "$0")/../.."
dir=build-device
rows=""
status=0
row() { rows="$rows$(printf '%-44s %-6s %s' "$1" "$2" "$3")\n"; [ "$2" = PASS ] || status=1; }
# at_least VALUE MIN: PASS when the number VALUE >= MIN, else SLOW.
at_least() { awk -v v="$1" -v m="$2" 'BEGIN { exit !(v != "" && v + 0 >= m + 0) }' && echo PASS || echo SLOW; }
# byte_check LABEL PROGRAM: runs a CUDA-vs-CPU check (PASS / FAIL lines per
# group, the seed in its output) into $dir/PROGRAM.log; one row.
byte_check() {
  log="$dir/$2.log"
  if "$dir/bin/$2" >"$log" 2>&1; then
    row "$1" PASS "$(grep -c '^PASS' "$log") groups, $(grep -o 'seed=[0-9]*' "$log" | head -1)"
  else
    row "$1" FAIL "$(grep -c '^FAIL' "$log") groups failed, $(grep -o 'seed=[0-9]*' "$log" | head -1); see $log"
  fi
}
# copy_share LOG LINE_START LABEL MIN: a row from the benchmark line that
# starts with LINE_START ("... N GB/s ... P% of copy"): PASS when P >= MIN.
copy_share() {
  line=$(grep "^$2" "$1")
  pct=$(printf '%s' "$line" | sed -n 's/.* \([0-9.]*\)% of copy.*/\1/p')
  gbps=$(printf '%s' "$line" | sed -n 's/.* \([0-9.]*\) GB\/s.*/\1/p')
  row "$3" "$(at_least "$pct" "$4")" "$pct% ($gbps GB/s)"
}

if cmake -S . -B "$dir" -DFRUGAL_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DFRUGAL_WERROR=ON >/dev/null &&
   cmake --build "$dir" -j"$(nproc)" >/dev/null; then
  row "build (CUDA ON, sm_90)" PASS ""
else
  row "build (CUDA ON, sm_90)" FAIL "see cmake output"
  printf %b "$rows"; exit 1
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

byte_check "quant CUDA == CPU bytes, FP8 GEMM vs fp64" quant_cuda_check

blog="$dir/quant_gpu_bench.log"
if "$dir/bin/quant_gpu_bench" >"$blog" 2>&1; then
  for what in "cast+amax fp32" "cast+amax bf16" "cast+transpose+amax fp32" "cast+transpose+amax bf16"; do
    copy_share "$blog" "delayed $what->" "fp8 $what >= 85% of copy" 85
  done
  speedup=$(sed -n 's/^fp8\/bf16 gemm speedup: \([0-9.]*\)x.*/\1/p' "$blog")
  row "fp8 gemm >= 1.5x bf16 (8192^3)" "$(at_least "$speedup" 1.5)" \
    "$(sed -n 's/^fp8\/bf16 gemm speedup: //p' "$blog")"
else
  row "quant_gpu_bench" FAIL "see $blog"
fi

byte_check "router CUDA == CPU bytes (plans, moves)" router_cuda_check

rblog="$dir/router_gpu_bench.log"
if "$dir/bin/router_gpu_bench" >"$rblog" 2>&1; then
  for what in permute combine; do
    copy_share "$rblog" "$what bf16" "router $what bf16 >= 60% of copy" 60
  done
  route_us() { sed -n "s/^route $1 .* \([0-9.]*\) us$/\1/p" "$rblog"; }
  row "router route T=64K E=256 k=8 (time)" PASS \
    "deepseek_v3 $(route_us deepseek_v3) us, topk_softmax $(route_us 'topk_softmax aux+z') us"
else
  row "router_gpu_bench" FAIL "see $rblog"
fi

# comm_nccl is built only where NCCL is found: a GPU machine should have it.
if [ -x "$dir/bin/comm_nccl_check" ]; then
  byte_check "NCCL one-rank collectives" comm_nccl_check
else
  row "NCCL one-rank collectives" FAIL "comm_nccl not built (NCCL not found: see the cmake output)"
fi

printf '%-44s %-6s %s\n' check result detail
printf %b "$rows"
exit $status
