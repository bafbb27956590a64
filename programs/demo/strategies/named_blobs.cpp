#include "named_blobs.hpp"

#include <cstddef>
#include <stdexcept>

#include "frugal/sdk/state_blob.hpp"

namespace frugal_demo {
namespace {

constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kMaxName = 256;

}  // namespace

std::vector<std::uint8_t> pack_named_blobs(std::string_view magic, const std::vector<NamedBlob>& parts) {
  frugal::sdk::StateWriter writer(magic, kVersion);
  writer.u64(parts.size());
  for (const NamedBlob& part : parts) writer.text(part.name).u64(part.bytes.size());
  for (const NamedBlob& part : parts)
    for (const std::uint8_t b : part.bytes) writer.u8(b);
  const std::vector<std::byte> bytes = std::move(writer).finish();
  std::vector<std::uint8_t> out(bytes.size());
  for (std::size_t i = 0; i < bytes.size(); ++i) out[i] = std::to_integer<std::uint8_t>(bytes[i]);
  return out;
}

std::vector<NamedBlob> unpack_named_blobs(std::span<const std::uint8_t> blob, std::string_view magic,
                                          const std::vector<std::string>& expected, const std::string& what) {
  // The sdk's reader reports with its own exception type; the demo's
  // callers expect std::runtime_error.
  try {
    frugal::sdk::StateReader reader(std::as_bytes(blob), magic, kVersion, what);
    const std::uint64_t count = reader.count("count", 1u << 20, 12);
    if (count != expected.size())
      reader.mismatched("holds " + std::to_string(count) + " states, this model has " +
                        std::to_string(expected.size()));
    std::vector<NamedBlob> parts(expected.size());
    std::vector<std::uint64_t> sizes(expected.size());
    for (std::size_t i = 0; i < parts.size(); ++i) {
      parts[i].name = reader.text("name", kMaxName);
      if (parts[i].name != expected[i])
        reader.mismatched("state " + std::to_string(i) + " is '" + parts[i].name + "', expected '" + expected[i] + "'");
      sizes[i] = reader.count("size", blob.size(), 1);
    }
    for (std::size_t i = 0; i < parts.size(); ++i) {
      parts[i].bytes.resize(sizes[i]);
      for (std::uint8_t& b : parts[i].bytes) b = reader.u8("state byte");
    }
    reader.finish();
    return parts;
  } catch (const frugal::sdk::PluginError& e) {
    throw std::runtime_error(e.what());
  }
}

}  // namespace frugal_demo
