# frugal_add_plugin(<name> SOURCES ... [OUTPUT_DIR dir] [VERSION_SCRIPT file] [NO_INSTALL])
# Builds a plugin the way every vendor should: against the ABI headers and
# the sdk helpers only (never libfrugal), hidden visibility, a version script
# exporting only the entry symbol, no undefined symbols, and no
# STB_GNU_UNIQUE symbols (they would make dlclose a no-op).
function(frugal_add_plugin name)
  cmake_parse_arguments(ARG "NO_INSTALL" "OUTPUT_DIR;VERSION_SCRIPT" "SOURCES" ${ARGN})
  add_library(${name} MODULE ${ARG_SOURCES})
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${FRUGAL_PLUGIN_BUILD_DIR}")
  endif()
  set_target_properties(${name} PROPERTIES PREFIX "" LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIR}")
  target_link_libraries(${name} PRIVATE frugal::sdk)
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-gnu-unique>)
  if(NOT ARG_VERSION_SCRIPT)
    set(ARG_VERSION_SCRIPT "${PROJECT_SOURCE_DIR}/packaging/plugin.map")
  endif()
  target_link_options(${name} PRIVATE "-Wl,--version-script=${ARG_VERSION_SCRIPT}" "-Wl,--no-undefined")
  set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS "${ARG_VERSION_SCRIPT}")
  frugal_target_warnings(${name})
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${name} LIBRARY DESTINATION "${FRUGAL_PLUGIN_INSTALL_DIR}" COMPONENT runtime)
  endif()
endfunction()
