# FRUGAL_SANITIZE=address,undefined (or thread) instruments every target,
# plugins included, so a plugin bug shows up in the host's test run.
if(FRUGAL_SANITIZE)
  set(_frugal_san_flags -fsanitize=${FRUGAL_SANITIZE} -fno-omit-frame-pointer)
  if(FRUGAL_SANITIZE MATCHES "undefined")
    list(APPEND _frugal_san_flags -fno-sanitize-recover=all)
  endif()
  foreach(flag IN LISTS _frugal_san_flags)
    add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${flag}>")
  endforeach()
  add_link_options(-fsanitize=${FRUGAL_SANITIZE})
endif()

# FRUGAL_SANITIZER_PRELOAD: the sanitizer runtime an uninstrumented host
# (Python, in the tests that load libfrugal through the binding) must preload
# before it can load the instrumented library; empty without sanitizers.
# UBSan's runtime needs no preload: libfrugal pulls it in as a dependency.
set(FRUGAL_SANITIZER_PRELOAD "")
if(FRUGAL_SANITIZE MATCHES "address|thread")
  if(FRUGAL_SANITIZE MATCHES "address")
    set(_frugal_san_runtime libasan.so)
  else()
    set(_frugal_san_runtime libtsan.so)
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${_frugal_san_runtime}
                  OUTPUT_VARIABLE FRUGAL_SANITIZER_PRELOAD OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${FRUGAL_SANITIZER_PRELOAD}" OR NOT EXISTS "${FRUGAL_SANITIZER_PRELOAD}")
    message(FATAL_ERROR "FRUGAL_SANITIZE=${FRUGAL_SANITIZE}: ${CMAKE_CXX_COMPILER} does not know where "
                        "${_frugal_san_runtime} is (it said '${FRUGAL_SANITIZER_PRELOAD}')")
  endif()
endif()
