# frugal_add_plugin(<name> SOURCES ... [OUTPUT_DIR dir] [VERSION_SCRIPT file] [COMPONENT c] [NO_INSTALL])
# COMPONENT is the install component (default runtime, the libfrugal<major>
# package); a plugin with a heavy dependency of its own (comm_mpi: OpenMPI)
# gets a package of its own so the core package never pulls it in.
# Builds a plugin the way every vendor should: against the ABI headers and
# the sdk helpers only (never libfrugal), with the rules of
# FrugalPluginRules.cmake, the same file the installed package gives
# vendors (frugal_add_vendor_plugin).
include(FrugalPluginRules)

function(frugal_add_plugin name)
  cmake_parse_arguments(ARG "NO_INSTALL" "OUTPUT_DIR;VERSION_SCRIPT;COMPONENT" "SOURCES" ${ARGN})
  if(NOT ARG_COMPONENT)
    set(ARG_COMPONENT runtime)
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${FRUGAL_PLUGIN_BUILD_DIR}")
  endif()
  set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIR}")
  target_link_libraries(${name} PRIVATE frugal::sdk)
  if(NOT ARG_VERSION_SCRIPT)
    set(ARG_VERSION_SCRIPT "${PROJECT_SOURCE_DIR}/packaging/plugin.map")
  endif()
  frugal_plugin_link_rules(${name} "${ARG_VERSION_SCRIPT}")
  frugal_target_warnings(${name})
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${name} LIBRARY DESTINATION "${FRUGAL_PLUGIN_INSTALL_DIR}" COMPONENT ${ARG_COMPONENT})
  endif()
endfunction()
