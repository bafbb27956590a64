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
