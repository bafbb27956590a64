package frugal

// cgo asks pkg-config for the headers and library: the installed frugal.pc
// (a system install, or <libdir>/pkgconfig in PKG_CONFIG_PATH), or a
// build tree's <build>/pkgconfig/frugal-uninstalled.pc when PKG_CONFIG_PATH
// holds that directory. No rpath is embedded: at run time the dynamic
// loader finds libfrugal, through its cache for a system install or
// through LD_LIBRARY_PATH. CGO_CFLAGS and CGO_LDFLAGS still add flags of
// their own.

/*
#cgo pkg-config: frugal
*/
import "C"
