#!/bin/sh
# usage: run_kill_check.sh MPIEXEC RANKS TIMEOUT_MS CHECK PLUGIN [MPIEXEC_FLAG...]
# Runs comm_kill_check on RANKS ranks with mpirun's recovery on (so the
# launcher lets the survivors run after one rank dies, as a resilient job
# would), and passes when every survivor printed its "ok" line in time.
set -u
mpiexec=$1 ranks=$2 timeout_ms=$3 check=$4 plugin=$5
shift 5
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s)
"$mpiexec" "$@" --enable-recovery -np "$ranks" "$check" "$timeout_ms" "$plugin" >"$out" 2>&1
status=$?
elapsed=$(( $(date +%s) - start ))
grep -v "PMIX ERROR" "$out"
survivors=$(grep -c "^survivor [0-9]*: ok" "$out")
expected=$((ranks - 1))
if [ "$survivors" -ne "$expected" ]; then
  echo "run_kill_check: $survivors of $expected survivors reported ok (mpirun exit $status)" >&2
  exit 1
fi
# Bounded: start-up, the deadline, and the launcher's teardown.
limit=$(( timeout_ms / 1000 + 60 ))
if [ "$elapsed" -gt "$limit" ]; then
  echo "run_kill_check: the job took $elapsed s, more than $limit s" >&2
  exit 1
fi
echo "run_kill_check: all $expected survivors got their error in time ($elapsed s in all)"
