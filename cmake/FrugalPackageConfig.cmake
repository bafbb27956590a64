# What a build against the *installed* SDK finds: the CMake package
# (export set, frugalConfig.cmake, frugalConfigVersion.cmake, the plugin
# build rules) and the pkg-config files. Included from the top-level
# CMakeLists.txt after the targets exist.
include(CMakePackageConfigHelpers)

set(FRUGAL_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/frugal")

install(EXPORT frugalTargets NAMESPACE frugal:: DESTINATION "${FRUGAL_CMAKE_INSTALL_DIR}" COMPONENT dev)

configure_package_config_file(cmake/frugalConfig.cmake.in "${PROJECT_BINARY_DIR}/frugalConfig.cmake"
  INSTALL_DESTINATION "${FRUGAL_CMAKE_INSTALL_DIR}"
  PATH_VARS FRUGAL_PLUGIN_INSTALL_DIR)
# Callers ask for an ABI version (1.0) or an SDK release (0.1, the
# packages' version): the version file accepts both, SameMajorVersion in
# each scheme (cmake/frugalConfigVersion.cmake.in says how it tells them apart).
configure_file(cmake/frugalConfigVersion.cmake.in "${PROJECT_BINARY_DIR}/frugalConfigVersion.cmake" @ONLY)
install(FILES
  "${PROJECT_BINARY_DIR}/frugalConfig.cmake"
  "${PROJECT_BINARY_DIR}/frugalConfigVersion.cmake"
  cmake/FrugalPluginRules.cmake
  cmake/FrugalVendorPlugin.cmake
  packaging/plugin.map
  DESTINATION "${FRUGAL_CMAKE_INSTALL_DIR}" COMPONENT dev)

# pkg-config: frugal.pc for hosts (links libfrugal), frugal-plugin.pc for
# plugins (headers and link rules, no -lfrugal). Both locate the prefix
# from their own directory, so one file serves a --prefix install, a
# DESTDIR staging tree and the .deb (installed under /usr) alike.
file(RELATIVE_PATH FRUGAL_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" FRUGAL_PC_TO_PREFIX "${FRUGAL_PC_TO_PREFIX}")
foreach(pc frugal frugal-plugin)
  configure_file("packaging/${pc}.pc.in" "${PROJECT_BINARY_DIR}/${pc}.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/${pc}.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig" COMPONENT dev)
endforeach()
