#!/bin/sh
# usage: sdk/rust/tests/install_crate.sh [BUILD_DIR]
#
# The Rust crate as a user builds it: libfrugal from BUILD_DIR (default: the
# repository's build/) with `cmake --install` into a temporary prefix, the
# crate and samples/rust_tour copied to a temporary directory outside the
# tree (the tour depending on the copy by path, with no build script of its
# own), the crate's build script finding the library and headers through
# the installed frugal.pc only (PKG_CONFIG_PATH; FRUGAL_LIB_DIR and
# FRUGAL_INCLUDE_DIR unset), the library at run time through
# LD_LIBRARY_PATH, as an install outside the loader's cache is.
# Builds the tour with no usable C compiler (the layout probe belongs to
# `cargo test` only), runs the crate's tests and the tour there, checks
# that the binaries load libfrugal from the install and that no
# RUNPATH/RPATH in them points into the source tree or the copy. Offline.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
build=${1:-$repo/build}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/frugal-rust.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "install_crate.sh: $*" >&2; exit 1; }

. "$repo/sdk/binding_install_checks.sh"
install_prefix "$build"

# Copies without target/, so nothing built in the tree comes along.
mkdir "$tmp/src" "$tmp/src/frugal" "$tmp/src/rust_tour"
(cd "$repo/sdk/rust" && tar cf - --exclude=./target .) | (cd "$tmp/src/frugal" && tar xf -)
(cd "$repo/samples/rust_tour" && tar cf - --exclude=./target .) | (cd "$tmp/src/rust_tour" && tar xf -)
sed 's|path = "../../sdk/rust"|path = "../frugal"|' "$repo/samples/rust_tour/Cargo.toml" >"$tmp/src/rust_tour/Cargo.toml"
grep -q 'path = "../frugal"' "$tmp/src/rust_tour/Cargo.toml" || fail "samples/rust_tour/Cargo.toml has no path dependency on ../../sdk/rust"
[ ! -e "$tmp/src/rust_tour/build.rs" ] || fail "samples/rust_tour has a build.rs: a dependent of the crate must need none"

unset FRUGAL_LIB_DIR FRUGAL_INCLUDE_DIR FRUGAL_ABI_INCLUDE_DIR PKG_CONFIG_LIBDIR
export PKG_CONFIG_PATH="$(dirname "$pc")"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CARGO_TARGET_DIR="$tmp/target"

# A dependent's plain build compiles no C: CC names a compiler that fails.
cd "$tmp/src/rust_tour"
CC=false cargo build --offline --quiet
check_binary "$tmp/target/debug/rust_tour"
"$tmp/target/debug/rust_tour" >"$tmp/tour.log" || { cat "$tmp/tour.log" >&2; fail "the tour failed"; }

cd "$tmp/src/frugal"
cargo test --offline --quiet --no-run
for test in $(find "$tmp/target/debug/deps" -maxdepth 1 -type f -perm -u+x ! -name '*.so' ! -name '*.d'); do
  check_binary "$test" may-not-link
done
cargo test --offline --quiet
echo "install_crate.sh: ok: the crate built from $tmp/src against $pc, libfrugal $lib"
