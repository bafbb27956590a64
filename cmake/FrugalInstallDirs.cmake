# GNUInstallDirs, with Debian's multiarch library directory as the default
# libdir wherever dpkg-architecture exists: lib/<DEB_HOST_MULTIARCH>
# (lib/x86_64-linux-gnu). The .deb puts libfrugal and its plugins where
# Debian's ld.so, pkg-config (also its cross wrappers) and find_package look
# first; a plain `cmake --install` into /usr/local lands in
# /usr/local/lib/<triplet>, which Debian's ld.so.conf, pkg-config and CMake
# search as well. GNUInstallDirs alone picks the triplet only for the prefix
# /usr, and the packages are made from the same build tree as a /usr/local
# install, so the choice is made here, once, at configure time.
# -DCMAKE_INSTALL_LIBDIR=lib (or any other) overrides it.
if(NOT DEFINED CMAKE_INSTALL_LIBDIR)
  find_program(FRUGAL_DPKG_ARCHITECTURE dpkg-architecture)
  mark_as_advanced(FRUGAL_DPKG_ARCHITECTURE)
  if(FRUGAL_DPKG_ARCHITECTURE)
    execute_process(COMMAND "${FRUGAL_DPKG_ARCHITECTURE}" -qDEB_HOST_MULTIARCH
                    OUTPUT_VARIABLE _frugal_multiarch OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE _frugal_multiarch_rc ERROR_QUIET)
    if(_frugal_multiarch_rc EQUAL 0 AND _frugal_multiarch MATCHES "^[a-z0-9_]+-[a-z0-9_]+-[a-z0-9_]+$")
      set(CMAKE_INSTALL_LIBDIR "lib/${_frugal_multiarch}" CACHE PATH
          "Object code libraries (LIBDIR); Debian's multiarch directory by default")
    endif()
  endif()
endif()
include(GNUInstallDirs)
