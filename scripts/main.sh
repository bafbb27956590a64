#!/bin/sh
# The main job: install what is missing, build, and run it.
# Today the main job lists the plugins frugal finds; the end-to-end
# training demo replaces it when it lands.
set -eu
cd "$(dirname "$0")/.."
scripts/setup-deps.sh
scripts/build.sh build >/dev/null
exec build/bin/frugal plugins "$@"
