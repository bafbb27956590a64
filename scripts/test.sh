#!/bin/sh
# The whole test suite: install what is missing, build, run every test, the
# Rust, Go and Python bindings' tests and their tour samples; then the same
# suite again as a Release build with Clang under AddressSanitizer +
# UndefinedBehaviorSanitizer (and clang-tidy over its units), the tests of
# concurrent code (label "concurrent") under ThreadSanitizer in a Debug build
# (both built without CUDA), and every fuzz target for a short fixed time
# (scripts/fuzz.sh, Clang + libFuzzer under ASan + UBSan). Three build types
# (RelWithDebInfo, Release, Debug) and two compilers (GCC, Clang) in four
# builds.
# Set FRUGAL_SKIP_SANITIZERS=1 to run only the plain build.
set -eu
cd "$(dirname "$0")/.."
scripts/setup-deps.sh
jobs=$(nproc)
started=$(date +%s)
# "== name == (+S s)": each stage's start, seconds into the run, so a slow
# stage shows in any CI log (docs/benchmarks.md records them).
stage() { echo "== $1 == (+$(($(date +%s) - started)) s)"; }

stage "formatting (clang-format, scripts/format.sh --check)"
scripts/format.sh --check

stage "build + tests (RelWithDebInfo)"
scripts/build.sh build >/dev/null
ctest --test-dir build -j"$jobs" --output-on-failure --timeout 300

stage "language bindings and their tour samples against build/ (Rust, Go, Python)"
# The Rust and Go bindings find libfrugal with pkg-config (sdk/rust/build.rs,
# sdk/go/cgo.go): build/pkgconfig holds the build tree's
# frugal-uninstalled.pc, and the loader finds build/lib through
# LD_LIBRARY_PATH (no rpath into the tree). Python finds build/lib by
# default (sdk/python/frugal/_lib.py). cgocheck=2 also checks every pointer
# handed to C against the cgo rules. Python is Debian's, where python3-numpy
# and python3-torch live (FRUGAL_PYTHON picks another interpreter).
python=${FRUGAL_PYTHON:-/usr/bin/python3}
(
  export PKG_CONFIG_PATH="$PWD/build/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export LD_LIBRARY_PATH="$PWD/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  (cd sdk/rust && cargo test --offline --quiet)
  sdk/rust/tests/layout_detects_moves.sh
  (cd samples/rust_tour && cargo run --offline --quiet)
  (cd sdk/go && go vet ./... && go test -count=1 ./... && GODEBUG=cgocheck=2 go test -count=1 ./...)
  (cd samples/go_tour && go vet . && go run .)
)
(cd sdk/python && "$python" -m unittest discover -s tests)
"$python" samples/python_tour/tour.py
# The Python package as a user installs it: cmake --install into a temporary
# prefix, pip into a fresh venv (offline), its tests run from outside the tree.
sdk/python/tests/install_venv.sh build
# The Rust crate and the Go module likewise: cmake --install into a temporary
# prefix, the binding copied out of the tree and built against the installed
# frugal.pc, its tests and tour run there, no RUNPATH into the source tree.
sdk/rust/tests/install_crate.sh build
sdk/go/tests/install_module.sh build

if [ "${FRUGAL_SKIP_SANITIZERS:-0}" != 1 ]; then
  stage "build + tests (Release, Clang, ASan + UBSan, without CUDA), then the lint"
  # One build for three jobs, each of which used to cost a build of its own:
  # the second compiler (Clang warns about other things than GCC, and the
  # ABI gate then reads its types from what Clang emits), the third build
  # type (the plain build is RelWithDebInfo, the TSan build Debug: Release
  # has no debug info, which the gate must cope with), and AddressSanitizer +
  # UndefinedBehaviorSanitizer over every test. At -O3 UBSan's checks are
  # all there (Clang emits them before the optimiser runs) and ASan checks
  # every access the optimised code still makes, the accesses a user's build
  # makes; the tests run several times faster than at -O0. Without CUDA
  # (every CUDA path must be optional) and the benchmarks (their smoke
  # tests run in the plain build).
  # Its compile_commands.json feeds the lint: clang-tidy over the fewest
  # units that include every project header between them
  # (scripts/lint_units.py "cover"), every finding an error. Without the
  # precompiled headers and unity batches the other builds use
  # (cmake/FrugalPch.cmake, cmake/FrugalUnity.cmake): each file compiles
  # alone, so one that does not include what it uses fails here.
  CC=clang-14 CXX=clang++-14 scripts/build.sh build-clang-asan -DCMAKE_BUILD_TYPE=Release \
    -DFRUGAL_SANITIZE=address,undefined -DFRUGAL_WITH_CUDA=OFF -DFRUGAL_BUILD_BENCH=OFF -DFRUGAL_PCH=OFF -DFRUGAL_UNITY=OFF \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-clang-asan -j"$jobs" --output-on-failure --timeout 600
  scripts/lint.sh build-clang-asan cover
fi
if [ "${FRUGAL_SKIP_SANITIZERS:-0}" != 1 ]; then
  stage "build + tests (TSan)"
  # Without CUDA too: no device here to run the kernels on, and nvcc twice
  # would double the slowest part of the build. Only the tests that run
  # threads (tests/CMakeLists.txt, CONCURRENT), the demo model's thread
  # pool and its plugin-backed strategies included: single-threaded code has
  # no races to find, and building it a third time took minutes. Debug
  # (assertions on, full debug info) at -O1, as ThreadSanitizer's manual
  # asks for reasonable speed: at -O0 these tests took 296 of the stage's
  # 645 s (docs/benchmarks.md).
  FRUGAL_BUILD_TARGET=frugal_concurrent_tests scripts/build.sh build-tsan -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
    -DFRUGAL_SANITIZE=thread -DFRUGAL_WITH_CUDA=OFF -DFRUGAL_BUILD_BENCH=OFF >/dev/null
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ctest --test-dir build-tsan -L concurrent -j"$jobs" \
    --output-on-failure --timeout 600
fi
if [ "${FRUGAL_SKIP_SANITIZERS:-0}" != 1 ]; then
  stage "fuzz targets (libFuzzer, ASan + UBSan), ${FRUGAL_FUZZ_SECONDS:-30} s each"
  scripts/fuzz.sh "${FRUGAL_FUZZ_SECONDS:-30}"
fi
echo "all tests passed (in $(($(date +%s) - started)) s)"
