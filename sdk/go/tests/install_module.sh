#!/bin/sh
# usage: sdk/go/tests/install_module.sh [BUILD_DIR]
#
# The Go module as a user builds it: libfrugal from BUILD_DIR (default: the
# repository's build/) with `cmake --install` into a temporary prefix, the
# module and samples/go_tour copied to a temporary directory outside the
# tree (the tour reaching the module through a `replace` to the copy), cgo
# finding headers and library through the installed frugal.pc only
# (PKG_CONFIG_PATH; CGO_CFLAGS/CGO_LDFLAGS unset), the library at run time
# through LD_LIBRARY_PATH, as an install outside the loader's cache is.
# Runs vet and the module's tests and the tour there, checks that the
# binaries load libfrugal from the install and that no RUNPATH/RPATH in
# them points into the source tree or the copy. Offline: GOPROXY=off.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
build=${1:-$repo/build}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/frugal-go.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "install_module.sh: $*" >&2; exit 1; }

. "$repo/sdk/binding_install_checks.sh"
install_prefix "$build"

# The module path is whatever sdk/go/go.mod declares; the tour's replace is
# pointed at the copy, as a user points it at their checkout.
module=$(awk '$1 == "module" { print $2; exit }' "$repo/sdk/go/go.mod")
mkdir "$tmp/src"
cp -R "$repo/sdk/go" "$tmp/src/frugal"
cp -R "$repo/samples/go_tour" "$tmp/src/go_tour"
(cd "$tmp/src/go_tour" && go mod edit -replace="$module=../frugal")

unset CGO_CFLAGS CGO_CPPFLAGS CGO_LDFLAGS PKG_CONFIG_LIBDIR
export PKG_CONFIG_PATH="$(dirname "$pc")"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GOPROXY=off GOFLAGS=-mod=mod

cd "$tmp/src/frugal"
go vet ./...
go test -c -o "$tmp/frugal.test" .
check_binary "$tmp/frugal.test"
"$tmp/frugal.test" -test.count=1 ${FRUGAL_TEST_VERBOSE:+-test.v}

cd "$tmp/src/go_tour"
go vet .
go build -o "$tmp/go_tour" .
check_binary "$tmp/go_tour"
"$tmp/go_tour" >"$tmp/tour.log" || { cat "$tmp/tour.log" >&2; fail "the tour failed"; }
echo "install_module.sh: ok: $module built from $tmp/src against $pc, libfrugal $lib"
