# frugal-uninstalled.pc: the build tree as a pkg-config package, for the
# Go and Rust bindings' tests run from a checkout (scripts/test.sh puts
# <build>/pkgconfig first in PKG_CONFIG_PATH). pkg-config prefers
# <name>-uninstalled.pc over <name>.pc, so `pkg-config frugal` then names
# the headers in abi/include and the libfrugal just built, never an
# installed one. It carries no rpath: at run time the library is found
# through LD_LIBRARY_PATH, as an installed one is through the loader.
# The installed frugal.pc comes from packaging/frugal.pc.in.
file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/pkgconfig/frugal-uninstalled.pc" CONTENT
"# The frugal build tree ${PROJECT_BINARY_DIR} (not installed).
libdir=$<TARGET_FILE_DIR:frugal>
includedir=${PROJECT_SOURCE_DIR}/abi/include

Name: frugal
Description: frugal core library (stable C ABI), uninstalled build tree
Version: ${FRUGAL_ABI_MAJOR}.${FRUGAL_ABI_MINOR}
Libs: -L\${libdir} -lfrugal
Cflags: -I\${includedir}
")
