#!/bin/sh
# usage: sdk/python/tests/install_venv.sh [BUILD_DIR]
#
# The Python package as a user installs it: libfrugal from BUILD_DIR
# (default: the repository's build/) with `cmake --install` into a temporary
# prefix, the package with pip into a temporary venv of Debian's python3
# (--system-site-packages for python3-numpy and python3-torch; offline:
# --no-index --no-build-isolation, setuptools from python3-setuptools), and
# the package's own tests run from outside the source tree against both.
# The installed library is found through LD_LIBRARY_PATH, as an install
# outside the loader's cache is; FRUGAL_LIB stays unset.
# FRUGAL_PYTHON picks another interpreter.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
build=${1:-$repo/build}
python=${FRUGAL_PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/frugal-venv.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log"
lib=$(find "$tmp/prefix" -name libfrugal.so.2 | head -n 1)
if [ -z "$lib" ]; then
  echo "install_venv.sh: cmake --install $build put no libfrugal.so.2 under $tmp/prefix" >&2
  exit 1
fi
libdir=$(dirname "$lib")

"$python" -m venv --system-site-packages "$tmp/venv"
# Built from a copy, so pip leaves no build/ or *.egg-info in the tree, and
# the tests below cannot import the source package by accident.
mkdir "$tmp/src"
cp -R "$repo/sdk/python/frugal" "$repo/sdk/python/pyproject.toml" "$repo/sdk/python/README.md" "$tmp/src/"
"$tmp/venv/bin/pip" install --quiet --no-index --no-build-isolation "$tmp/src"
rm -rf "$tmp/src"
cp -R "$repo/sdk/python/tests" "$tmp/tests"

cd "$tmp"
unset FRUGAL_LIB
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export FRUGAL_INCLUDE_DIR="$tmp/prefix/include"
export PYTHONDONTWRITEBYTECODE=1
"$tmp/venv/bin/python" - "$tmp/venv" "$libdir" <<'PY'
import os, sys
import frugal
venv, libdir = sys.argv[1:]
where = os.path.realpath(frugal.__file__)
if not where.startswith(os.path.realpath(venv) + os.sep):
    sys.exit(f"install_venv.sh: frugal imported from {where}, not the venv {venv}")
library = os.path.realpath(frugal.library_path())
if os.path.dirname(library) != os.path.realpath(libdir):
    sys.exit(f"install_venv.sh: libfrugal loaded from {library}, not the install {libdir}")
with frugal.Context(discover=True) as ctx:
    plugins = [p.path for p in ctx.plugins()]
if not plugins or not all(p.startswith(os.path.realpath(libdir)) for p in map(os.path.realpath, plugins)):
    sys.exit(f"install_venv.sh: plugins not from the install: {plugins}")
print(f"install_venv.sh: frugal {frugal.version_string()} from {where}, libfrugal {library}, {len(plugins)} plugins")
PY
"$tmp/venv/bin/python" -m unittest discover -s "$tmp/tests" ${FRUGAL_TEST_VERBOSE:+-v}
