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
  # Clang links its runtimes statically by default, and into a C
  # executable only their C part: libfrugal's C++ checks (vptr, function
  # type) then have no handler to link against. The shared runtime (GCC's
  # only model) serves C and C++ hosts alike and is the one an
  # uninstrumented host preloads (FRUGAL_SANITIZER_PRELOAD); it lives in
  # Clang's resource directory, which the loader does not search. Not for
  # the fuzzers: -fsanitize=fuzzer puts libstdc++ ahead of a shared runtime,
  # which ASan refuses ("does not come first in initial library list"), and
  # that build has no C host and preloads nothing.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND NOT FRUGAL_BUILD_FUZZERS)
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} --print-runtime-dir
                    OUTPUT_VARIABLE _frugal_san_dir OUTPUT_STRIP_TRAILING_WHITESPACE)
    add_link_options(-shared-libsan "LINKER:-rpath,${_frugal_san_dir}")
  endif()
endif()

# FRUGAL_SANITIZER_PRELOAD: the sanitizer runtime an uninstrumented host
# (Python, in the tests that load libfrugal through the binding) must preload
# before it can load the instrumented library; empty without sanitizers.
# UBSan's runtime needs no preload: libfrugal pulls it in as a dependency.
set(FRUGAL_SANITIZER_PRELOAD "")
# GCC's runtimes are libasan.so / libtsan.so; Clang's are
# libclang_rt.<name>-<arch>.so (its ASan runtime holds UBSan's handlers too).
if(FRUGAL_SANITIZE MATCHES "address|thread")
  if(FRUGAL_SANITIZE MATCHES "address")
    set(_frugal_san_name asan)
  else()
    set(_frugal_san_name tsan)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    set(_frugal_san_runtime libclang_rt.${_frugal_san_name}-${CMAKE_SYSTEM_PROCESSOR}.so)
  else()
    set(_frugal_san_runtime lib${_frugal_san_name}.so)
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${_frugal_san_runtime}
                  OUTPUT_VARIABLE FRUGAL_SANITIZER_PRELOAD OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${FRUGAL_SANITIZER_PRELOAD}" OR NOT EXISTS "${FRUGAL_SANITIZER_PRELOAD}")
    message(FATAL_ERROR "FRUGAL_SANITIZE=${FRUGAL_SANITIZE}: ${CMAKE_CXX_COMPILER} does not know where "
                        "${_frugal_san_runtime} is (it said '${FRUGAL_SANITIZER_PRELOAD}')")
  endif()
endif()
