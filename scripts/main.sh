#!/bin/sh
# The main job: install what is missing, build, and run the training demo
# (`frugal demo`, docs/demo.md). Arguments go to the demo: --quick for the
# short version, --out DIR for where its files go, --help for the rest.
set -eu
cd "$(dirname "$0")/.."
scripts/setup-deps.sh
[ -f build/bin/frugal ] || echo "main: building frugal (the first build takes a few minutes)..." >&2
scripts/build.sh build >/dev/null
exec build/bin/frugal demo "$@"
