# Unity builds: each target's C++ files compiled in batches of
# FRUGAL_UNITY_BATCH, one translation unit per batch. Most of a file's
# compile is parsing the standard, fmt and Catch2 headers it shares with
# its neighbours; a batch parses them once (docs/benchmarks.md, "Build and
# CI time"). Files of one target therefore must not define the same name
# at namespace scope, anonymous namespaces included: a helper two files
# need is written once, in a header or a file of its own.
#
# FRUGAL_UNITY (default ON) turns it off, for a build that must prove each
# file compiles alone, with what it includes and nothing a neighbour did:
# CI's Clang build (the one the lint reads) is made with FRUGAL_UNITY=OFF
# and FRUGAL_PCH=OFF. An edit-compile loop may want it off too: a change
# recompiles the file's whole batch.
option(FRUGAL_UNITY "Compile each target's C++ files in batches (CMake unity build)" ON)
set(FRUGAL_UNITY_BATCH 8 CACHE STRING "Files per unity batch (FRUGAL_UNITY)")
set(CMAKE_UNITY_BUILD ${FRUGAL_UNITY})
set(CMAKE_UNITY_BUILD_BATCH_SIZE ${FRUGAL_UNITY_BATCH})
