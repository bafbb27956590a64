#!/bin/sh
# usage: scripts/fuzz.sh [SECONDS] [TARGET...]
# Builds the libFuzzer targets of tests/fuzz/ with Clang under
# AddressSanitizer + UndefinedBehaviorSanitizer (build-fuzz/), then runs
# each (or only the TARGETs named) for SECONDS (default 30), nproc at a
# time (FRUGAL_FUZZ_JOBS overrides), from its committed seeds in
# tests/fuzz/corpus/<target>/. The corpus in the tree is
# never written: each run works on a copy in build-fuzz/corpus/. A finding
# (crash, sanitizer report, leak, timeout, out-of-memory) stops the script
# once its batch is done, with exit 1 and the input that caused it in
# build-fuzz/findings/.
# Longer runs by hand: docs/fuzzing.md.
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-30}
[ $# -gt 0 ] && shift
cc=${FRUGAL_FUZZ_CC:-clang-14}
cxx=${FRUGAL_FUZZ_CXX:-clang++-14}
command -v "$cxx" >/dev/null || { echo "fuzz.sh: $cxx not found (scripts/setup-deps.sh installs clang-14)" >&2; exit 2; }

FRUGAL_BUILD_TARGET=frugal_fuzzers scripts/build.sh build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DFRUGAL_BUILD_FUZZERS=ON \
  -DFRUGAL_SANITIZE=address,undefined -DFRUGAL_WITH_CUDA=OFF -DFRUGAL_BUILD_TESTS=OFF \
  -DFRUGAL_BUILD_SAMPLES=OFF -DFRUGAL_BUILD_DEMO=OFF -DFRUGAL_BUILD_BENCH=OFF >/dev/null

targets=${*:-$(cd build-fuzz/bin && ls fuzz_* | grep -v '_seeds$' | sort)}
rm -rf build-fuzz/findings
mkdir -p build-fuzz/findings
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
symbolizer=/usr/lib/llvm-14/bin/llvm-symbolizer
[ -x "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer"
# One target: its seeds copied into a fresh work corpus, then the run;
# prints the target's result line, exit 1 on a finding.
fuzz_one() {
  t=$1
  work=build-fuzz/corpus/$t
  rm -rf "$work"
  mkdir -p "$work"
  [ -d "tests/fuzz/corpus/$t" ] && cp -R "tests/fuzz/corpus/$t/." "$work/"
  # A target may write extra seeds of its own (valid checkpoints, exported
  # states) that are easier to generate than to commit as binaries.
  [ -x "build-fuzz/bin/${t}_seeds" ] && "build-fuzz/bin/${t}_seeds" "$work"
  log=build-fuzz/findings/$t.log
  if build-fuzz/bin/"$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
       -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$t-" "$work" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    printf '%-24s %8s %8s %s\n' "$t" "$seconds" "${runs:-?}" "no finding"
  else
    printf '%-24s %8s %8s %s\n' "$t" "$seconds" "-" "FINDING"
    return 1
  fi
}

# nproc targets at a time (each fuzzer is one process on one core), in
# batches: every run takes the same SECONDS, so a batch ends together.
# Each writes its line to a file, printed in order once its batch is done.
jobs=${FRUGAL_FUZZ_JOBS:-$(nproc)}
printf '%-24s %8s %8s %s\n' target seconds inputs result
set -- $targets
found=
while [ $# -gt 0 ]; do
  batch=
  while [ $# -gt 0 ] && [ "$(echo $batch | wc -w)" -lt "$jobs" ]; do
    batch="$batch $1"
    shift
  done
  for t in $batch; do
    { fuzz_one "$t" >"build-fuzz/findings/$t.result" || echo "$t" >"build-fuzz/findings/$t.failed"; } &
  done
  wait
  for t in $batch; do
    cat "build-fuzz/findings/$t.result"
    if [ -e "build-fuzz/findings/$t.failed" ]; then
      tail -n 60 "build-fuzz/findings/$t.log" >&2
      echo "fuzz.sh: $t found a bug; the input is in build-fuzz/findings/ (replay: build-fuzz/bin/$t FILE)" >&2
      found=1
    fi
  done
  [ -z "$found" ] || break
done
[ -z "$found" ]
