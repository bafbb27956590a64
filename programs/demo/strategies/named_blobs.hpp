// One checkpoint blob holding the states of several plugin instances (one
// router per MoE layer, one quantizer per hooked tensor): a small header
// (count, then per instance its name and size), the states, and a
// checksum, so a restore refuses a blob written for another model.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace frugal_demo {

struct NamedBlob {
  std::string name;
  std::vector<std::uint8_t> bytes;
};

// magic: 4 characters naming what the blob holds.
std::vector<std::uint8_t> pack_named_blobs(std::string_view magic, const std::vector<NamedBlob>& parts);

// Checks the header, the checksum and that the names are exactly
// `expected`, in order; throws std::runtime_error starting with `what`
// and naming the first problem.
std::vector<NamedBlob> unpack_named_blobs(std::span<const std::uint8_t> blob, std::string_view magic,
                                          const std::vector<std::string>& expected, const std::string& what);

}  // namespace frugal_demo
