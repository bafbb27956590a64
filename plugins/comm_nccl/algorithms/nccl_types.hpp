// frugal element types, reductions and failures in NCCL's terms. Tables
// only: nccl.h is read for its enums, nothing of libnccl is called, so the
// tests check the mapping without a GPU.
//
// Reductions run in NCCL's own type for each dtype the core lets through
// (frugal/comm.h: sum, max and min of f32, f64, f16, bf16, i32 and i64; max
// and min of u8). Every other collective only moves bytes, so it travels as
// ncclUint8 with byte counts: any dtype (fp8, int16, bool, which NCCL has no
// type or no arithmetic for) moves unchanged.
#pragma once

#include <nccl.h>

#include <cstdint>
#include <optional>

namespace frugal::comm_nccl {

// The NCCL type a reduction of `dtype` runs in (the seven dtypes above);
// nullopt for any other.
std::optional<ncclDataType_t> reduce_type(int32_t dtype);

// ncclSum / ncclMax / ncclMin for a frugal_reduce_op_values value; nullopt otherwise.
std::optional<ncclRedOp_t> reduce_op(int32_t op);

// "ncclSum", "ncclFloat32", ... for messages.
const char* nccl_op_name(ncclRedOp_t op);
const char* nccl_type_name(ncclDataType_t type);

// The enumerator's name of an NCCL result ("ncclRemoteError"), for messages.
const char* nccl_result_name(ncclResult_t result);

// Where a failed NCCL call is reported.
enum class Phase {
  join,        // create (init, wrapping) and split: the caller's configuration may be at fault
  collective,  // a call the core has already checked: any failure breaks the group
};

// The frugal error code of a failed NCCL result: a peer or the network
// (ncclRemoteError, ncclSystemError) is IO; CUDA underneath
// (ncclUnhandledCudaError) is DEVICE; an argument or usage NCCL refuses is
// INVALID_ARGUMENT while joining (two ranks on one GPU, a bad id) and
// INTERNAL in a collective (the core checked the call: a bug here, or
// ranks that disagree); anything else INTERNAL.
int32_t error_code(ncclResult_t result, Phase phase);

}  // namespace frugal::comm_nccl
