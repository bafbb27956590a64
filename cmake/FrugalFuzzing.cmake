# FRUGAL_BUILD_FUZZERS=ON: every target is compiled with libFuzzer's coverage
# instrumentation (-fsanitize=fuzzer-no-link), so the fuzzers in tests/fuzz/
# are guided by the branches of libfrugal and the plugins they drive, not
# only by their own. FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION (the name
# libFuzzer, OSS-Fuzz and their users share) turns checksum *enforcement*
# off, so mutated manifests and state blobs reach the validation behind the
# checksum; such a build must never be shipped. scripts/fuzz.sh configures
# and runs it (docs/fuzzing.md).
if(FRUGAL_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "FRUGAL_BUILD_FUZZERS needs Clang (libFuzzer): configure with "
                        "-DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 (scripts/fuzz.sh does)")
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link>")
  add_compile_definitions(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
endif()
