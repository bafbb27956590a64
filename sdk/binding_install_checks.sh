# Sourced by sdk/go/tests/install_module.sh and sdk/rust/tests/install_crate.sh:
# what both do to a binding built outside the tree. The caller defines
# fail() (prints its arguments and exits 1), $repo (the source tree) and
# $tmp (its scratch directory, copies of the binding under $tmp/src).

# install_prefix BUILD_DIR: `cmake --install` of BUILD_DIR into $tmp/prefix;
# sets pc (the installed frugal.pc), lib (libfrugal.so.2) and libdir.
install_prefix() {
  cmake --install "$1" --prefix "$tmp/prefix" >"$tmp/install.log"
  pc=$(find "$tmp/prefix" -name frugal.pc | head -n 1)
  [ -n "$pc" ] || fail "cmake --install $1 put no frugal.pc under $tmp/prefix"
  lib=$(find "$tmp/prefix" -name libfrugal.so.2 | head -n 1)
  [ -n "$lib" ] || fail "cmake --install $1 put no libfrugal.so.2 under $tmp/prefix"
  libdir=$(dirname "$lib")
}

# check_binary BINARY [may-not-link]: no RUNPATH/RPATH of BINARY lies in the
# source tree or the copy, and libfrugal, which BINARY must need unless
# may-not-link says it may not (a test binary that calls no C), resolves
# to the install ($lib).
check_binary() {
  readelf -d "$1" >"$tmp/dynamic.txt" || fail "readelf -d $1 failed"
  for root in "$repo" "$(realpath "$repo")" "$tmp/src"; do
    if grep -E '\((RUNPATH|RPATH)\)' "$tmp/dynamic.txt" | grep -F -q "$root"; then
      fail "$1 has a RUNPATH/RPATH into $root: $(grep -E 'RUNPATH|RPATH' "$tmp/dynamic.txt")"
    fi
  done
  if ! grep -E '\(NEEDED\).*\[libfrugal\.so' "$tmp/dynamic.txt" >/dev/null; then
    [ "${2:-}" = may-not-link ] || fail "$1 does not link libfrugal"
    return 0
  fi
  loaded=$(ldd "$1" | awk '$1 ~ /^libfrugal\.so/ { print $3 }')
  [ "$(realpath "$loaded")" = "$(realpath "$lib")" ] || fail "$1 loads libfrugal from '$loaded', not the install $lib"
}
