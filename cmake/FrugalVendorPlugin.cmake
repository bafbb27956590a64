# frugal_add_vendor_plugin(<target> SOURCES ... [INSTALL_DESTINATION dir])
# Installed with the frugal package config: builds an out-of-tree plugin
# exactly as the built-in ones are built (FrugalPluginRules.cmake), against
# frugal::sdk (headers only; a plugin never links libfrugal).
# INSTALL_DESTINATION: where `cmake --install` puts the .so; give
# ${frugal_PLUGIN_INSTALL_DIR} to install next to the built-in plugins of
# a core installed under the same prefix, or any directory you then add to
# FRUGAL_PLUGIN_PATH. Without it nothing is installed.
function(frugal_add_vendor_plugin target)
  cmake_parse_arguments(ARG "" "INSTALL_DESTINATION" "SOURCES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "frugal_add_vendor_plugin(${target}): unknown arguments '${ARG_UNPARSED_ARGUMENTS}'")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "frugal_add_vendor_plugin(${target}): SOURCES is empty")
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE frugal::sdk)
  frugal_plugin_link_rules(${target} "${frugal_PLUGIN_VERSION_SCRIPT}")
  if(ARG_INSTALL_DESTINATION)
    install(TARGETS ${target} LIBRARY DESTINATION "${ARG_INSTALL_DESTINATION}")
  endif()
endfunction()
