# Precompiled headers for the targets with many files. CI compiles the tree
# four times on two cores, and most of a file's compile is spent parsing the
# same standard, fmt and nlohmann-json headers (docs/benchmarks.md, "Build
# and CI time"): a target that precompiles them parses them once.
#
# FRUGAL_PCH (default ON) turns it off, for a build that must prove every
# file includes what it uses: a precompiled header is seen by every file of
# its target, so a missing #include would compile. CI's Clang build (the one
# the lint reads) is made with FRUGAL_PCH=OFF for that reason.
option(FRUGAL_PCH "Precompile the common standard, fmt and JSON headers of the larger targets" ON)

# The standard headers most sources include (counted over core/src,
# plugins/ and programs/).
set(FRUGAL_PCH_STD_HEADERS
    <algorithm> <array> <cmath> <cstddef> <cstdint> <cstring> <functional> <limits> <memory> <optional>
    <span> <stdexcept> <string> <string_view> <utility> <vector>)

# frugal_precompile(<target> [FMT] [JSON] [HEADERS h...]): <target>'s C++
# files get one precompiled header holding the standard set, plus fmt's
# format.h (FMT), nlohmann/json.hpp (JSON, some 25,000 lines: 3 to 5 s of
# every file that reads it) and any HEADERS (in <> form).
function(frugal_precompile target)
  if(NOT FRUGAL_PCH)
    return()
  endif()
  cmake_parse_arguments(ARG "FMT;JSON" "" "HEADERS" ${ARGN})
  set(headers ${FRUGAL_PCH_STD_HEADERS} ${ARG_HEADERS})
  if(ARG_FMT)
    list(APPEND headers <fmt/format.h>)
  endif()
  if(ARG_JSON)
    list(APPEND headers <nlohmann/json.hpp>)
  endif()
  set(wrapped "")
  foreach(h IN LISTS headers)
    string(REPLACE ">" "$<ANGLE-R>" h "${h}")
    list(APPEND wrapped "$<$<COMPILE_LANGUAGE:CXX>:${h}>")
  endforeach()
  target_precompile_headers(${target} PRIVATE ${wrapped})
endfunction()
