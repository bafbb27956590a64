# frugal_plugin_link_rules(<target> <version script>)
# The build rules every frugal plugin needs, in-tree and out of tree alike
# (this file is installed with the package config):
#  - hidden visibility, so only FRUGAL_PLUGIN_EXPORT symbols leave the .so;
#  - a version script exporting only frugal_plugin_init_v2 (ABI rule 10);
#  - -fno-gnu-unique (GCC): STB_GNU_UNIQUE symbols (inline statics,
#    template statics) would pin the .so in memory and make dlclose a no-op;
#    Clang never emits them and has no such flag;
#  - -Wl,--no-undefined: a plugin must not link libfrugal nor rely on the
#    host's symbols, so any undefined symbol is a bug caught at link time.
#    Not with Clang's sanitizers: Clang links the sanitizer runtime into the
#    executable only, so an instrumented .so refers to it undefined;
#  - no "lib" prefix: plugins are named after what they provide.
function(frugal_plugin_link_rules target version_script)
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-gnu-unique>)
  endif()
  target_link_options(${target} PRIVATE "-Wl,--version-script=${version_script}")
  if(NOT (CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND FRUGAL_SANITIZE))
    target_link_options(${target} PRIVATE "-Wl,--no-undefined")
  endif()
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${version_script}")
endfunction()
