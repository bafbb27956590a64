#!/bin/sh
# usage: scripts/format.sh [--check]
# clang-format-14 with the tree's .clang-format over every tracked C, C++
# and CUDA file: rewrites them in place, or with --check changes nothing
# and exits 1 naming each file that is not formatted (CI runs the check
# first: it takes seconds and fails before any build).
set -eu
cd "$(dirname "$0")/.."
format=${FRUGAL_CLANG_FORMAT:-clang-format-14}
command -v "$format" >/dev/null || { echo "format.sh: $format not found (scripts/setup-deps.sh installs it)" >&2; exit 2; }
files() { git ls-files -z -- '*.c' '*.h' '*.cpp' '*.hpp' '*.cu' '*.cuh'; }
case ${1:-} in
  "") files | xargs -0 "$format" -i ;;
  --check)
    bad=$(files | xargs -0 "$format" --dry-run 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: warning: code should be clang-formatted.*/\1/p' | sort -u)
    if [ -n "$bad" ]; then
      printf '%s\n' "$bad" | sed 's/^/  /' >&2
      echo "format.sh: the files above are not formatted: run scripts/format.sh (or clang-format-14 -i FILE)" >&2
      exit 1
    fi
    echo "format: every C, C++ and CUDA file formatted" ;;
  *) echo "usage: scripts/format.sh [--check]" >&2; exit 2 ;;
esac
