# Warnings for our own targets: frugal_target_warnings(<target>).
function(frugal_target_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wconversion -Wno-sign-conversion>
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wpedantic>)
  if(FRUGAL_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C,CXX>:-Werror>)
  endif()
endfunction()
