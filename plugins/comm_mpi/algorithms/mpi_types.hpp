// frugal element types and reductions as MPI datatypes and operations.
// MPI has no fp16 or bf16 arithmetic, so those reduce through operations
// of our own: widen to fp32 (exact), combine, round back to nearest even.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace frugal::comm_mpi {

// The MPI datatype moving elements of `dtype` (types MPI cannot do
// arithmetic on travel as unsigned integers of their width).
MPI_Datatype datatype_of(int32_t dtype);

// The MPI operation for `reduce_op` on `dtype` (a combination the core
// has accepted). Creates the half-precision operations on first use.
MPI_Op op_of(int32_t dtype, int32_t reduce_op);

}  // namespace frugal::comm_mpi
