# CPack: one `frugal` package holding the whole SDK (libfrugal, the
# built-in plugins, the CLI, headers, CMake package and pkg-config files),
# as a .deb (installed under /usr) and a relocatable .tar.gz.
# Build both with the `package` target or `cpack --config <build>/CPackConfig.cmake`.
set(CPACK_PACKAGE_NAME frugal)
set(CPACK_PACKAGE_VENDOR "frugal")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "libfrugal (stable C ABI, SONAME libfrugal.so.${FRUGAL_ABI_MAJOR}), the built-in strategy plugins "
    "(LR schedules, checkpoint store, sequence packer, FP8/INT8 quantizer, MoE router, cost policies), "
    "the frugal CLI, and the headers, CMake package and pkg-config files to build hosts and plugins.")
string(JOIN "" CPACK_PACKAGE_DESCRIPTION ${CPACK_PACKAGE_DESCRIPTION})
set(FRUGAL_PACKAGE_MAINTAINER "frugal maintainers <maintainers@frugal.invalid>"
    CACHE STRING "Maintainer field of the .deb")
set(CPACK_PACKAGE_CONTACT "${FRUGAL_PACKAGE_MAINTAINER}")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_SOURCE_GENERATOR "")
# RelWithDebInfo binaries carry DWARF: several times their code's size.
set(CPACK_STRIP_FILES ON)
# The .tar.gz names its architecture too (the .deb's name is Debian's own).
set(CPACK_PACKAGE_FILE_NAME "${CPACK_PACKAGE_NAME}-${PROJECT_VERSION}-${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}")

set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${FRUGAL_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Depends from what the binaries really need (readelf -d: libc6,
# libstdc++6, libgcc-s1, libfmt9; the CUDA runtime is linked statically and the
# driver is dlopened, so no CUDA package). dpkg-shlibdeps (dpkg-dev) gives
# the minimal versions; without it, the versions of Debian 12's toolchain.
find_program(FRUGAL_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(FRUGAL_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  # The CLI needs libfrugal.so.1, which this very package ships.
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${CMAKE_LIBRARY_OUTPUT_DIRECTORY}")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.36), libstdc++6 (>= 12), libgcc-s1 (>= 3.0), libfmt9 (>= 9.1)")
endif()

include(CPack)
