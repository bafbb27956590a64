package frugal

// The default flags point at the repository's default build directory
// (build/ at the repository root). For a build elsewhere, or an installed
// libfrugal, add -I/-L/-rpath through CGO_CFLAGS and CGO_LDFLAGS: the
// go tool puts those before the flags below, so they win.

/*
#cgo CFLAGS: -I${SRCDIR}/../../abi/include
#cgo LDFLAGS: -L${SRCDIR}/../../build/lib -Wl,-rpath,${SRCDIR}/../../build/lib -lfrugal
*/
import "C"
