# cmake -P script: writes the `symbols` control file of libfrugal<major>
# from the built library, one line per exported symbol with the SDK release
# that first shipped its version node (packaging/debian/symver-releases.txt;
# a node not listed there is new in RELEASE). dpkg-shlibdeps reads exactly
# these lines (it does not expand patterns), so a package using only
# FRUGAL_2.0 functions depends on libfrugal2 (>= the release of FRUGAL_2.0),
# whatever release it was built against.
# Inputs: LIBRARY, NM, SONAME, PACKAGE, DEV_PACKAGE, RELEASE, RELEASES_FILE, OUTPUT.
foreach(_var LIBRARY NM SONAME PACKAGE DEV_PACKAGE RELEASE RELEASES_FILE OUTPUT)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "FrugalDebianSymbols.cmake: ${_var} is not set")
  endif()
endforeach()

file(STRINGS "${RELEASES_FILE}" _node_releases REGEX "^FRUGAL_")
execute_process(COMMAND "${NM}" -D --defined-only "${LIBRARY}"
                OUTPUT_VARIABLE _nm RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only ${LIBRARY} failed: ${_rc}")
endif()
string(REPLACE "\n" ";" _nm_lines "${_nm}")
set(_lines "")
foreach(_line IN LISTS _nm_lines)
  # "0000000000012340 T frugal_abi_version@@FRUGAL_2.0"; the node itself
  # appears as "A FRUGAL_2.0" and is not a symbol to list.
  if(_line MATCHES " [TDBRVWi] ([A-Za-z0-9_]+)@@?(FRUGAL_[0-9.]+)$")
    set(_name "${CMAKE_MATCH_1}")
    set(_node "${CMAKE_MATCH_2}")
    set(_release "${RELEASE}")
    foreach(_known IN LISTS _node_releases)
      if(_known MATCHES "^${_node} +([0-9.]+)$")
        set(_release "${CMAKE_MATCH_1}")
      endif()
    endforeach()
    list(APPEND _lines " ${_name}@${_node} ${_release}")
  elseif(_line MATCHES " [TDBRVWi] ([A-Za-z0-9_]+)$")
    message(FATAL_ERROR "${LIBRARY}: ${CMAKE_MATCH_1} is exported without a symbol version "
                        "(packaging/libfrugal.map must give every export a FRUGAL_x.y node)")
  endif()
endforeach()
if(NOT _lines)
  message(FATAL_ERROR "${LIBRARY}: no versioned symbol in `${NM} -D --defined-only`")
endif()
list(SORT _lines)
list(JOIN _lines "\n" _body)
file(WRITE "${OUTPUT}.tmp" "${SONAME} ${PACKAGE} #MINVER#\n* Build-Depends-Package: ${DEV_PACKAGE}\n${_body}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
