# frugal_mpiexec_flags(<out-var>): the flags every mpirun line of the build
# passes. OpenMPI refuses root without --allow-run-as-root (CI runs as root)
# and more ranks than cores without --oversubscribe (CI has 2 cores); other
# MPIs get none. Needs find_package(MPI) first (MPIEXEC_EXECUTABLE).
function(frugal_mpiexec_flags out)
  execute_process(COMMAND "${MPIEXEC_EXECUTABLE}" --version OUTPUT_VARIABLE _version ERROR_QUIET)
  set(_flags "")
  if(_version MATCHES "Open MPI|OpenRTE")
    set(_flags --allow-run-as-root --oversubscribe)
  endif()
  set(${out} ${_flags} PARENT_SCOPE)
endfunction()
