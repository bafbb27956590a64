# CPack: the SDK as Debian packages, one per install component, and one
# relocatable .tar.gz holding the whole install tree:
#   libfrugal<ABI major>  (component runtime)  libfrugal.so.2*, the built-in plugins
#   libfrugal-dev         (component dev)      headers, libfrugal.so, CMake package, pkg-config files
#   frugal-tools          (component tools)    frugal, frugal-conformance, frugal-demo
#   python3-frugal        (component python)   the ctypes binding (sdk/python/frugal)
#   frugal-comm-mpi       (component mpi)      the comm_mpi plugin, when MPI was found
#   frugal-comm-nccl      (component nccl)     the comm_nccl plugin, when CUDA and NCCL were found
# Build them with the `package` target or `cpack --config <build>/CPackConfig.cmake`.
# docs/packaging.md describes the packages; tests/install checks them with lintian.
include(FrugalDebianFiles)

set(CPACK_PACKAGE_NAME frugal)
set(CPACK_PACKAGE_VENDOR "frugal")
# CPackDeb prepends a summary other than CPack's default to every component's
# description; each description below starts with its own summary line.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_NAME} built using CMake")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "${FRUGAL_PACKAGE_MAINTAINER}")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_SOURCE_GENERATOR "")
# RelWithDebInfo binaries carry DWARF: several times their code's size.
set(CPACK_STRIP_FILES ON)
# The .tar.gz names its architecture too (the .debs' names are Debian's own).
set(CPACK_PACKAGE_FILE_NAME "${CPACK_PACKAGE_NAME}-${PROJECT_VERSION}-${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}")
# What the packages hold; the install rules without a component (the
# header-only INTERFACE targets of the export set) install no file.
set(CPACK_COMPONENTS_ALL runtime dev tools python)
if(TARGET comm_mpi)
  list(APPEND CPACK_COMPONENTS_ALL mpi)
endif()
if(TARGET comm_nccl)
  list(APPEND CPACK_COMPONENTS_ALL nccl)
endif()
# The .tar.gz stays one archive of the whole tree (the `python` component,
# EXCLUDE_FROM_ALL, is only in the .deb).
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)

# --- Debian ---------------------------------------------------------------
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${FRUGAL_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_DEBIAN_PACKAGE_RELEASE "${FRUGAL_DEB_REVISION}")
set(CPACK_DEBIAN_PACKAGE_SOURCE frugal)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The control files below (shlibs, symbols, triggers) are read as written,
# with the modes Debian requires.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(_frugal_runtime_pkg "libfrugal${FRUGAL_ABI_MAJOR}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME "${_frugal_runtime_pkg}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
string(CONCAT CPACK_DEBIAN_RUNTIME_DESCRIPTION
    "frugal core library (stable C ABI) and built-in plugins\n"
    "libfrugal (SONAME libfrugal.so.${FRUGAL_ABI_MAJOR}) is the core of frugal, an SDK of\n"
    "strategy plugins for cheaper deep-learning training, with a stable C ABI.\n"
    "This package also holds the built-in plugins: LR schedules, checkpoint\n"
    "store, sequence packer, FP8/INT8 quantizer, MoE router, cost policies\n"
    "and the one-process communicator (comm_local; comm_mpi is frugal-comm-mpi).")
# shlibs and symbols let dpkg-shlibdeps give packages linking libfrugal
# their dependency; the trigger runs ldconfig once per dpkg run.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA
    "${FRUGAL_DEB_CONTROL_DIR}/shlibs;${FRUGAL_DEB_CONTROL_DIR}/symbols;${FRUGAL_DEB_CONTROL_DIR}/triggers")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libfrugal-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# Exactly this build's library: the .so symlink and the CMake export files
# name its file.
# libxxhash-dev: frugal/sdk/checksum.hpp includes xxhash.h.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${_frugal_runtime_pkg} (= ${FRUGAL_DEB_VERSION}), libxxhash-dev")
string(CONCAT CPACK_DEBIAN_DEV_DESCRIPTION
    "frugal development files (headers, CMake package, pkg-config)\n"
    "The C99 ABI headers, the header-only C++ helpers, libfrugal.so, the CMake\n"
    "package (find_package(frugal)) and the pkg-config files (frugal,\n"
    "frugal-plugin) to build host applications and out-of-tree plugins.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME frugal-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "${_frugal_runtime_pkg} (>= ${PROJECT_VERSION})")
string(CONCAT CPACK_DEBIAN_TOOLS_DESCRIPTION
    "frugal command line tools\n"
    "frugal (plugins, packing, checkpoints, the cost simulator),\n"
    "frugal-conformance (checks a plugin against the ABI rules) and\n"
    "frugal-demo (a small training run using every kind of strategy).")

set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-frugal)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_ARCHITECTURE all)
# Pure ctypes over the C ABI: any libfrugal of this ABI major will do.
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3, ${_frugal_runtime_pkg} (>= ${PROJECT_VERSION})")
string(CONCAT CPACK_DEBIAN_PYTHON_DESCRIPTION
    "Python binding of libfrugal\n"
    "A pure ctypes package over libfrugal's C ABI; shares numpy arrays and\n"
    "PyTorch tensors with frugal through DLPack without copies.")

# The plugin declares the ABI minor of this release's headers, so it needs
# this release's core or a newer one; OpenMPI's library comes from
# dpkg-shlibdeps (or the fallback below).
set(CPACK_DEBIAN_MPI_PACKAGE_NAME frugal-comm-mpi)
set(CPACK_DEBIAN_MPI_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_MPI_PACKAGE_DEPENDS "${_frugal_runtime_pkg} (>= ${PROJECT_VERSION})")
string(CONCAT CPACK_DEBIAN_MPI_DESCRIPTION
    "frugal communicator over MPI (comm_mpi plugin)\n"
    "The `mpi` backend of frugal's comm kind: collectives (all-reduce,\n"
    "broadcast, all-gather, reduce-scatter, all-to-all) over the system's\n"
    "OpenMPI, with deadlines that turn a dead rank into an error.")

# NCCL is not in Debian: NVIDIA's repository ships it as libnccl2, which
# puts libnccl.so.2 on the loader's path. dpkg-shlibdeps cannot name a
# package for a toolkit's own copy, so the Depends are written out.
set(CPACK_DEBIAN_NCCL_PACKAGE_NAME frugal-comm-nccl)
set(CPACK_DEBIAN_NCCL_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_NCCL_PACKAGE_DEPENDS
    "${_frugal_runtime_pkg} (>= ${PROJECT_VERSION}), libc6 (>= 2.36), libstdc++6 (>= 12), libgcc-s1 (>= 3.0), libnccl2 (>= 2.18)")
string(CONCAT CPACK_DEBIAN_NCCL_DESCRIPTION
    "frugal communicator over NCCL (comm_nccl plugin)\n"
    "The `nccl` backend of frugal's comm kind: collectives on CUDA device\n"
    "memory over NVIDIA's NCCL, with deadlines that abort a communicator\n"
    "whose peer is gone rather than hang.")

# Depends of the ELF packages from what their binaries really need (libc6,
# libstdc++6, libgcc-s1, libfmt9; the CUDA runtime is linked statically and
# the driver is dlopened, so no CUDA package). dpkg-shlibdeps (dpkg-dev)
# gives the minimal versions; without it, the versions of Debian 12's toolchain.
find_program(FRUGAL_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(FRUGAL_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_TOOLS_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_MPI_PACKAGE_SHLIBDEPS ON)
  # The tools need libfrugal.so.2, which no installed package provides at
  # build time: its dependency is the explicit one above.
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${CMAKE_LIBRARY_OUTPUT_DIRECTORY}")
else()
  set(_frugal_toolchain_depends "libc6 (>= 2.36), libstdc++6 (>= 12), libgcc-s1 (>= 3.0), libfmt9 (>= 9.1)")
  set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "${_frugal_toolchain_depends}")
  string(APPEND CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS ", ${_frugal_toolchain_depends}")
  string(APPEND CPACK_DEBIAN_MPI_PACKAGE_DEPENDS ", ${_frugal_toolchain_depends}, libopenmpi3 (>= 4.1)")
endif()

include(CPack)
