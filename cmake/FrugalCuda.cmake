# FRUGAL_WITH_CUDA=AUTO|ON|OFF -> FRUGAL_HAVE_CUDA. Without a toolkit the
# whole SDK still builds; CUDA code paths are simply not compiled.
set(FRUGAL_HAVE_CUDA OFF)
string(TOUPPER "${FRUGAL_WITH_CUDA}" _frugal_cuda_mode)
if(_frugal_cuda_mode STREQUAL "ON" OR _frugal_cuda_mode STREQUAL "AUTO")
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    set(FRUGAL_HAVE_CUDA ON)
  elseif(_frugal_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "FRUGAL_WITH_CUDA=ON but no CUDA toolkit was found (set CUDAToolkit_ROOT or use AUTO/OFF)")
  endif()
elseif(NOT _frugal_cuda_mode STREQUAL "OFF")
  message(FATAL_ERROR "FRUGAL_WITH_CUDA must be AUTO, ON or OFF (got '${FRUGAL_WITH_CUDA}')")
endif()

# frugal_enable_cuda_language(<result> <who>): in a directory that builds
# CUDA kernels, enables the CUDA language when FRUGAL_HAVE_CUDA and a usable
# nvcc exist (Hopper, sm_90, unless CMAKE_CUDA_ARCHITECTURES says otherwise)
# and sets <result> ON, else OFF (with a warning naming <who> when the
# toolkit has no working compiler). A macro: enable_language() must run at
# directory scope.
macro(frugal_enable_cuda_language result who)
  set(${result} OFF)
  if(FRUGAL_HAVE_CUDA)
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
      # Set before the language is enabled, which would otherwise pick the
      # compiler's default architecture.
      if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
        set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures" FORCE)
      endif()
      enable_language(CUDA)
      set(${result} ON)
      # CMake before 3.26 knows no C++20 flag for nvcc (12.0 and newer have
      # it). Cached, so the other directories that enable CUDA see it too.
      if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
        set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20" CACHE INTERNAL "nvcc's C++20 flag")
        set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20" CACHE INTERNAL "nvcc's C++20 flag")
      endif()
    else()
      message(WARNING "${who}: CUDA toolkit found but no usable CUDA compiler; building the CUDA path as a stub")
    endif()
  endif()
endmacro()

# frugal_cuda_kernels(<target>): what every plugin's kernel library shares.
# C++20, hidden symbols, the static CUDA runtime, no relocatable device
# code; IEEE division and square root, no flush-to-zero and no contraction
# of a * b + c into one rounding, so kernels can match their CPU reference
# bit for bit; -fno-gnu-unique so the plugin can unload; warnings as errors
# with FRUGAL_WERROR.
function(frugal_cuda_kernels target)
  set_target_properties(${target} PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    CUDA_STANDARD 20
    CUDA_STANDARD_REQUIRED ON
    CUDA_EXTENSIONS OFF
    CUDA_VISIBILITY_PRESET hidden
    CUDA_SEPARABLE_COMPILATION OFF
    # The runtime comes from the CUDA::cudart_static link below.
    CUDA_RUNTIME_LIBRARY None)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_link_libraries(${target} PUBLIC CUDA::cudart_static)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:--ftz=false --prec-div=true --prec-sqrt=true --fmad=false>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fno-gnu-unique>
    $<$<COMPILE_LANGUAGE:CXX>:-fno-gnu-unique>)
  if(FRUGAL_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--Werror=all-warnings>)
  endif()
  frugal_target_warnings(${target})
endfunction()

# frugal_cuda_stub(<target> <source>): the library standing in for a
# plugin's kernels in a build without CUDA (its functions report "built
# without CUDA"); users include "cuda/..." from the plugin's directory.
function(frugal_cuda_stub target source)
  add_library(${target} STATIC ${source})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${target} PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/..")
  target_compile_features(${target} PUBLIC cxx_std_20)
  frugal_target_warnings(${target})
endfunction()
