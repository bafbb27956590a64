#!/bin/sh
# The main job: install what is missing, build, and run it.
# Today the main job lists the plugins frugal finds; the end-to-end
# training demo replaces it when it lands.
set -eu
cd "$(dirname "$0")/.."
scripts/setup-deps.sh
[ -f build/bin/frugal ] || echo "main: building frugal (the first build takes a few minutes)..." >&2
scripts/build.sh build >/dev/null
exec build/bin/frugal plugins "$@"
