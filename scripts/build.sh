#!/bin/sh
# usage: scripts/build.sh BUILD_DIR [extra cmake -D options...]
# Configures (once) and builds frugal with warnings as errors: everything,
# or only the target named by FRUGAL_BUILD_TARGET.
set -eu
cd "$(dirname "$0")/.."
dir=$1
shift
cmake -S . -B "$dir" -DFRUGAL_WERROR=ON "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)" ${FRUGAL_BUILD_TARGET:+--target "$FRUGAL_BUILD_TARGET"}
