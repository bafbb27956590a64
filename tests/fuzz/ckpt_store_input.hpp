// The input format of fuzz_ckpt_store, shared with its seed generator: a
// sequence of files, each one byte naming the file (checkpoint slot x file
// kind, see file_key) and a little-endian u32 length, then the bytes. A
// length past the end takes what is left.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace frugal::fuzz::ckpt_input {

// The checkpoints a fuzzed store may hold: two kinds, steps out of order
// across sequences (as after a resume from an older step).
inline const char* const kCheckpoints[] = {"full-000000000010-00000001", "hb-000000000012-00000002",
                                           "full-000000000020-00000003", "hb-000000000015-00000004"};
// The files of each: the manifest, the shards of an engine of one process,
// and those of rank 0 of an engine with a comm (manifest format 3).
inline const char* const kFiles[] = {"manifest", "shard-00000", "shard-00001", "r00000-shard-00000",
                                     "r00000-shard-00001"};
inline constexpr uint8_t kFilesPerCheckpoint = 5;
inline constexpr uint8_t kFileCount = 4 * kFilesPerCheckpoint;

// The store key of file `index` (< kFileCount).
inline std::string file_key(uint8_t index) {
  return std::string(kCheckpoints[index / kFilesPerCheckpoint]) + "/" + kFiles[index % kFilesPerCheckpoint];
}

struct File {
  uint8_t index = 0;
  std::vector<uint8_t> bytes;
};

inline std::vector<File> decode(const uint8_t* data, size_t size) {
  std::vector<File> files;
  size_t at = 0;
  while (size - at >= 5) {
    File file;
    file.index = data[at];
    const uint32_t length = static_cast<uint32_t>(data[at + 1]) | static_cast<uint32_t>(data[at + 2]) << 8 |
                            static_cast<uint32_t>(data[at + 3]) << 16 | static_cast<uint32_t>(data[at + 4]) << 24;
    at += 5;
    const size_t take = length < size - at ? length : size - at;
    file.bytes.assign(data + at, data + at + take);
    at += take;
    files.push_back(std::move(file));
  }
  return files;
}

inline void encode(const File& file, std::vector<uint8_t>& out) {
  const auto length = static_cast<uint32_t>(file.bytes.size());
  out.push_back(file.index);
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<uint8_t>(length >> shift));
  out.insert(out.end(), file.bytes.begin(), file.bytes.end());
}

}  // namespace frugal::fuzz::ckpt_input
