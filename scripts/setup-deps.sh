#!/bin/sh
# Installs what frugal needs to build and test, from Debian's archive only.
# Idempotent and quiet: prints nothing and touches nothing when all is there.
set -eu

# abigail-tools: abidw and abidiff for the ABI gate (scripts/abi-check.py).
# dpkg-dev, lintian: the .deb packages (dependencies, checks in tests/install).
# cargo, golang-go, python3-numpy, python3-torch: the language bindings' tests
# (numpy and torch are what the Python binding shares tensors with).
# clang-14, libclang-rt-14-dev (libFuzzer and Clang's sanitizer runtimes),
# llvm-14 (llvm-symbolizer, for readable reports): the fuzzers (scripts/fuzz.sh).
# clang-tidy-14: the lint (scripts/lint.sh); clang-format-14: the style
# (.clang-format, CONTRIBUTING.md).
# python3-venv, python3-setuptools: the Python package installed with pip into
# a venv, offline (sdk/python/tests/install_venv.sh).
# nlohmann-json3-dev (header-only): every JSON the tools read or write, the
# CLI and its cost simulator, the conformance kit and the demo's report.
# libcli11-dev (header-only): the tools' command-line parser (support/args).
# libopenmpi-dev, openmpi-bin: the `mpi` comm (plugins/comm_mpi) and the tests
# that run it under mpirun across ranks.
packages="cmake make g++ pkg-config binutils python3 \
libboost-dev libfmt-dev libflatbuffers-dev flatbuffers-compiler libxxhash-dev catch2 \
abigail-tools dpkg-dev lintian cargo golang-go python3-numpy python3-torch \
clang-14 libclang-rt-14-dev llvm-14 clang-tidy-14 clang-format-14 python3-venv python3-setuptools nlohmann-json3-dev libcli11-dev \
libopenmpi-dev openmpi-bin"

missing=""
for p in $packages; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case "$status" in
    "install ok installed") ;;
    *) missing="$missing $p" ;;
  esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
  echo "setup-deps: need root (or sudo) to install:$missing" >&2
  exit 1
fi
echo "setup-deps: installing$missing" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
