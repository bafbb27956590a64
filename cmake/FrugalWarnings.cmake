# Warnings for our own targets: frugal_target_warnings(<target>).
function(frugal_target_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wconversion -Wno-sign-conversion>
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wpedantic>)
  if(FRUGAL_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C,CXX>:-Werror>)
    # GCC 12 at -O3 (Release) reports false -Wrestrict and
    # -Wstringop-overflow warnings inside libstdc++'s std::string operator+
    # (GCC bug 105329 and its relatives), and a false -Wfree-nonheap-object
    # inside std::vector's destructor: keep them visible, not fatal. The
    # same operator+ gives a false -Warray-bounds ("forming offset [32, 42]
    # ... of object std::string") where a precompiled header changes what
    # GCC inlines (check_options.cpp did; it now appends instead).
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CXX>:-Wno-error=restrict -Wno-error=stringop-overflow -Wno-error=free-nonheap-object
                                  -Wno-error=array-bounds>)
    endif()
  endif()
endfunction()
