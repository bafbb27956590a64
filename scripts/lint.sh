#!/bin/sh
# usage: scripts/lint.sh [BUILD_DIR] [BASE|cover|all]
# clang-tidy with the checks of .clang-tidy (every finding an error) over
# the project's own sources as BUILD_DIR compiles them (default
# build-clang-asan, the Clang build of CONTRIBUTING.md): exit 1 on any
# finding. With BASE (a git revision, e.g. main), only what changed since
# its merge base with HEAD (scripts/lint_units.py says how units are
# picked); with "cover", the fewest units that include every project
# header between them; with "all" or no BASE, every unit
# (about 260, some 40 minutes of CPU: docs/benchmarks.md).
set -eu
cd "$(dirname "$0")/.."
build=${1:-build-clang-asan}
base=${2:-all}
# A clone may have main only as origin/main; without either, everything.
if [ "$base" != all ] && [ "$base" != cover ] && ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
  if git rev-parse -q --verify "origin/$base^{commit}" >/dev/null; then
    base=origin/$base
  else
    echo "lint.sh: no revision $base here to compare with: linting every unit" >&2
    base=all
  fi
fi
if [ "$base" = all ]; then base=; fi
tidy=${FRUGAL_CLANG_TIDY:-clang-tidy-14}
tidy_path=$(command -v "$tidy") || { echo "lint.sh: $tidy not found (scripts/setup-deps.sh installs it)" >&2; exit 2; }

list=$(mktemp)
trap 'rm -f "$list"' EXIT
scripts/lint_units.py "$build" ${base:+"$base"} >"$list"
filter=$(head -n 1 "$list")
count=$(($(wc -l <"$list") - 1))
if [ "$count" -eq 0 ]; then
  echo "lint: no source changed since $base"
  exit 0
fi
case $base in
  cover) echo "lint: $count units (between them, every project header)" ;;
  "") echo "lint: $count units (all)" ;;
  *) echo "lint: $count units (what changed since $base)" ;;
esac
# One clang-tidy per unit, nproc at a time; each prints its findings in
# one piece once done, so parallel units' reports do not interleave.
# (run-clang-tidy-14 would do the same but forces colour codes into logs.)
tail -n +2 "$list" | xargs -P "$(nproc)" -n 1 sh -c \
  'out=$("$@" 2>&1) || { printf "%s\n" "$out" | grep -v "^[0-9]* warnings\{0,1\} generated\.$"; exit 1; }' \
  lint-unit "$tidy_path" -quiet -p "$build" -header-filter="$filter" || {
  echo "lint.sh: clang-tidy found the problems above (fix them, or NOLINT(check) with the reason why the check is wrong)" >&2
  exit 1
}
echo "lint: no finding"
