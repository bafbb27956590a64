// The frame of the core's own state blobs (the run scheduler's, the loss
// scaler's): the SDK's state codec (frugal/sdk/state_blob.hpp, the one the
// plugins use), so a core blob and a plugin blob are laid out alike: a
// 4-character magic, a u32 format, the fields little-endian (doubles as
// their bit patterns, so a restored object computes exactly what the
// exporting one would have), an XXH3-64 of everything before it. The codec
// throws sdk::PluginError, which the C entry points' guard reports with
// its code. Internal to libfrugal.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "frugal/sdk/state_blob.hpp"

namespace frugal {

using sdk::StateReader;
using sdk::StateWriter;

// One kind of core blob: its magic (4 characters), its format and how
// messages name it ("scheduler state").
struct BlobFrame {
  const char* magic;
  uint32_t format;
  const char* subject;
};

// A writer that has written the frame's magic and format; finish() seals it.
inline StateWriter begin_sealed(const BlobFrame& frame) { return StateWriter(frame.magic, frame.format); }

// A reader over a sealed blob's fields, with the rules the C API documents
// for the core's blobs: a short blob, another kind's, or one whose checksum
// fails is DATA_CORRUPTED; an intact newer format is UNSUPPORTED.
inline StateReader open_sealed(std::span<const std::byte> blob, const BlobFrame& frame) {
  return StateReader(blob, frame.magic, frame.format, frame.subject, sdk::HeaderRules::core_object);
}

// Copies a sealed blob out with the export_state contract: *size always,
// the bytes when `buffer` is not NULL and holds them, OUT_OF_RANGE when it
// is not NULL and too small. True when it copied.
inline bool copy_out(const std::vector<std::byte>& blob, void* buffer, size_t capacity, size_t* size,
                     std::string_view subject) {
  *size = blob.size();
  if (buffer == nullptr) return false;
  if (capacity < blob.size())
    fail(FRUGAL_ERR_OUT_OF_RANGE, "the {} takes {} bytes; the buffer holds {}", subject, blob.size(), capacity);
  std::memcpy(buffer, blob.data(), blob.size());
  return true;
}

}  // namespace frugal
