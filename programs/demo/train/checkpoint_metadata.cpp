#include "checkpoint_metadata.hpp"

#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

namespace frugal_demo {
namespace {

constexpr char kMagic[4] = {'F', 'D', 'M', 'C'};
constexpr std::uint32_t kVersion = 1;

// Little-endian fixed-width fields, so a checkpoint reads the same on any
// host the demo builds on.
class Writer {
 public:
  void bytes(const void* data, std::size_t size) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    out_.insert(out_.end(), p, p + size);
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void blob(const std::vector<std::uint8_t>& b) {
    u64(b.size());
    bytes(b.data(), b.size());
  }
  std::vector<std::uint8_t> take() { return std::move(out_); }

 private:
  std::vector<std::uint8_t> out_;
};

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> in) : in_(in) {}
  std::span<const std::uint8_t> take(std::size_t size, const char* what) {
    if (in_.size() - at_ < size)
      throw std::runtime_error(std::string("checkpoint metadata is truncated at ") + what + " (offset " +
                               std::to_string(at_) + ", " + std::to_string(in_.size()) + " bytes in all)");
    const auto part = in_.subspan(at_, size);
    at_ += size;
    return part;
  }
  std::uint64_t u64(const char* what) {
    const auto b = take(8, what);
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t{b[static_cast<std::size_t>(i)]} << (8 * i);
    return v;
  }
  std::uint32_t u32(const char* what) {
    const auto b = take(4, what);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t{b[static_cast<std::size_t>(i)]} << (8 * i);
    return v;
  }
  std::vector<std::uint8_t> blob(const char* what) {
    const std::uint64_t size = u64(what);
    if (size > in_.size() - at_)
      throw std::runtime_error(std::string("checkpoint metadata: ") + what + " declares " + std::to_string(size) +
                               " bytes, only " + std::to_string(in_.size() - at_) + " remain");
    const auto b = take(static_cast<std::size_t>(size), what);
    return {b.begin(), b.end()};
  }
  bool done() const { return at_ == in_.size(); }

 private:
  std::span<const std::uint8_t> in_;
  std::size_t at_ = 0;
};

}  // namespace

std::vector<std::uint8_t> encode_checkpoint_metadata(const CheckpointMetadata& m) {
  Writer w;
  w.bytes(kMagic, sizeof kMagic);
  w.u32(kVersion);
  w.u64(m.step);
  w.u64(static_cast<std::uint64_t>(m.adam_steps));
  w.u64(static_cast<std::uint64_t>(m.tokens));
  w.u64(std::bit_cast<std::uint64_t>(m.last_loss));
  w.u32(m.resource);
  w.blob(m.data_cursor);
  w.blob(m.router_state);
  w.blob(m.quant_state);
  w.blob(m.scheduler_state);
  return w.take();
}

CheckpointMetadata decode_checkpoint_metadata(std::span<const std::uint8_t> bytes) {
  Reader r(bytes);
  const auto magic = r.take(sizeof kMagic, "magic");
  if (std::memcmp(magic.data(), kMagic, sizeof kMagic) != 0)
    throw std::runtime_error("checkpoint metadata does not start with FDMC: not written by frugal-demo");
  const std::uint32_t version = r.u32("version");
  if (version != kVersion)
    throw std::runtime_error("checkpoint metadata version " + std::to_string(version) + " is not " +
                             std::to_string(kVersion) + ", the only one this frugal-demo reads");
  CheckpointMetadata m;
  m.step = r.u64("step");
  m.adam_steps = static_cast<std::int64_t>(r.u64("AdamW steps"));
  m.tokens = static_cast<std::int64_t>(r.u64("tokens"));
  m.last_loss = std::bit_cast<double>(r.u64("last loss"));
  m.resource = r.u32("capacity class");
  m.data_cursor = r.blob("data cursor");
  m.router_state = r.blob("router state");
  m.quant_state = r.blob("quantizer state");
  m.scheduler_state = r.blob("scheduler state");
  if (!r.done()) throw std::runtime_error("checkpoint metadata has trailing bytes after the scheduler state");
  if (m.resource != 1 && m.resource != 2)  // FRUGAL_RESOURCE_SPOT, FRUGAL_RESOURCE_RESERVED
    throw std::runtime_error("checkpoint metadata: capacity class " + std::to_string(m.resource) +
                             " is neither spot (1) nor reserved (2)");
  if (m.adam_steps < 0 || m.tokens < 0 || static_cast<std::uint64_t>(m.adam_steps) != m.step)
    throw std::runtime_error("checkpoint metadata: AdamW steps " + std::to_string(m.adam_steps) +
                             " do not match step " + std::to_string(m.step));
  return m;
}

}  // namespace frugal_demo
