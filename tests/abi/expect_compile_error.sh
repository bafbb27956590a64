#!/bin/sh
# usage: expect_compile_error.sh PATTERN COMPILER ARGS...
# Passes only when the compiler refuses the source and its diagnostics
# match the extended regular expression PATTERN (so a refusal for any other
# reason, such as a missing header, still fails the test).
set -u
pattern=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 0 ]; then
  echo "expect_compile_error: the compiler accepted the source; it must refuse it" >&2
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
  echo "expect_compile_error: refused, but no diagnostic matches '$pattern'" >&2
  exit 1
fi
