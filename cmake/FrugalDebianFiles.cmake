# The files a Debian package needs besides the install tree: the control
# files of libfrugal<major> (shlibs, symbols, triggers) and, in every
# package, /usr/share/doc/<package>/copyright (machine-readable, DEP-5) and
# changelog.Debian.gz. Also the install rule of the Python binding. Included
# by FrugalPackaging.cmake; the sources are in packaging/debian/.
#
# The doc files and the Python package are EXCLUDE_FROM_ALL: CPack installs
# each package's component by name and so gets them, while a plain
# `cmake --install` (a /usr/local tree, the .tar.gz) does not, since
# /usr/share/doc/<package> belongs to dpkg and /usr/lib/python3/dist-packages
# is Debian's directory for packaged modules (pip installs sdk/python
# anywhere else).
set(FRUGAL_PACKAGE_MAINTAINER "frugal maintainers <maintainers@frugal.invalid>"
    CACHE STRING "Maintainer field of the .deb packages")
# The Debian revision: 0.6.0-1 is the first packaging of release 0.6.0. The
# upstream part is always the SDK release (PROJECT_VERSION).
set(FRUGAL_DEB_REVISION 1 CACHE STRING "Debian revision of the .deb packages (the part after the '-')")
set(FRUGAL_DEB_VERSION "${PROJECT_VERSION}-${FRUGAL_DEB_REVISION}")
set(FRUGAL_DEB_CONTROL_DIR "${PROJECT_BINARY_DIR}/debian/control")
set(_frugal_deb_src "${PROJECT_SOURCE_DIR}/packaging/debian")

configure_file("${_frugal_deb_src}/shlibs.in" "${FRUGAL_DEB_CONTROL_DIR}/shlibs" @ONLY)
configure_file("${_frugal_deb_src}/triggers" "${FRUGAL_DEB_CONTROL_DIR}/triggers" COPYONLY)
# symbols lists every export of the built library (cmake/FrugalDebianSymbols.cmake).
add_custom_command(OUTPUT "${FRUGAL_DEB_CONTROL_DIR}/symbols"
  COMMAND "${CMAKE_COMMAND}" "-DLIBRARY=$<TARGET_FILE:frugal>" "-DNM=${CMAKE_NM}"
          "-DSONAME=libfrugal.so.${FRUGAL_ABI_MAJOR}" "-DPACKAGE=libfrugal${FRUGAL_ABI_MAJOR}"
          -DDEV_PACKAGE=libfrugal-dev "-DRELEASE=${PROJECT_VERSION}"
          "-DRELEASES_FILE=${_frugal_deb_src}/symver-releases.txt" "-DOUTPUT=${FRUGAL_DEB_CONTROL_DIR}/symbols"
          -P "${PROJECT_SOURCE_DIR}/cmake/FrugalDebianSymbols.cmake"
  DEPENDS frugal "${_frugal_deb_src}/symver-releases.txt" "${PROJECT_SOURCE_DIR}/cmake/FrugalDebianSymbols.cmake"
  COMMENT "Debian symbols file of libfrugal")
add_custom_target(frugal_deb_symbols ALL DEPENDS "${FRUGAL_DEB_CONTROL_DIR}/symbols")

# changelog.Debian.gz compressed as Debian requires: maximum compression and
# no name or time stamp in the gzip header (gzip -9n), so the package is
# reproducible.
set(_frugal_changelog "${PROJECT_BINARY_DIR}/debian/changelog.Debian")
configure_file("${_frugal_deb_src}/changelog.in" "${_frugal_changelog}" @ONLY)
find_program(FRUGAL_GZIP gzip REQUIRED)
mark_as_advanced(FRUGAL_GZIP)
execute_process(COMMAND "${FRUGAL_GZIP}" -9nc "${_frugal_changelog}"
                OUTPUT_FILE "${_frugal_changelog}.gz" RESULT_VARIABLE _frugal_gzip_rc)
if(NOT _frugal_gzip_rc EQUAL 0)
  message(FATAL_ERROR "gzip -9nc ${_frugal_changelog} failed: ${_frugal_gzip_rc}")
endif()

foreach(_pair "runtime;libfrugal${FRUGAL_ABI_MAJOR}" "dev;libfrugal-dev" "tools;frugal-tools" "python;python3-frugal"
              "mpi;frugal-comm-mpi" "nccl;frugal-comm-nccl")
  list(GET _pair 0 _component)
  list(GET _pair 1 _package)
  install(FILES "${_frugal_deb_src}/copyright" "${_frugal_changelog}.gz"
          DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/doc/${_package}"
          COMPONENT ${_component} EXCLUDE_FROM_ALL)
endforeach()

# The Python binding: the package directory as it is in the tree (pure
# ctypes, nothing to build), found by Debian's python3 with no path set.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/sdk/python/frugal"
        DESTINATION lib/python3/dist-packages
        COMPONENT python EXCLUDE_FROM_ALL
        PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
