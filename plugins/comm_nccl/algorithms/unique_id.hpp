// The NCCL unique id as text: the 128 bytes of an ncclUniqueId as 256 hex
// digits, the form option "unique_id" takes (a torch user reads the id out
// of torch.distributed's store as bytes and hands over bytes.hex()). Plain
// C++: no NCCL or CUDA here, so the tests check it on any machine.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace frugal::comm_nccl {

// NCCL_UNIQUE_ID_BYTES (nccl.h); nccl_comm.cpp asserts they agree.
inline constexpr std::size_t kUniqueIdBytes = 128;

using UniqueIdBytes = std::array<std::uint8_t, kUniqueIdBytes>;

// The bytes of `text`, 2 * kUniqueIdBytes hex digits (either case, no
// prefix or separators). Throws sdk::PluginError INVALID_ARGUMENT naming
// `option` and what is wrong: the length, or the first character that is
// not a hex digit and where it is.
UniqueIdBytes decode_unique_id(std::string_view text, const char* option);

// The 256 lower-case hex digits of `id` (decode_unique_id's inverse).
std::string encode_unique_id(const UniqueIdBytes& id);

// True when every byte is 0: what rank 0 of a "bootstrap" comm sends when
// it could not make an id (ncclGetUniqueId never returns all zeros: the id
// carries the root's address and a magic number).
bool is_null_id(const UniqueIdBytes& id);

}  // namespace frugal::comm_nccl
