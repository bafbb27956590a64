// support/checksum: XXH3-64 with the AVX2 loop chosen at run time must give
// the baseline's value bit for bit, one-shot and streamed in any chunking,
// on fresh random inputs of every size class and alignment.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "fast_checksum.hpp"
#include "test_seed.hpp"

using frugal::checksum::Isa;

namespace {

// The ISAs this CPU runs (the baseline always).
std::vector<Isa> runnable() {
  std::vector<Isa> out{Isa::baseline};
  if (frugal::checksum::best_isa() == Isa::avx2) out.push_back(Isa::avx2);
  return out;
}

}  // namespace

TEST_CASE("every runnable loop gives the SDK's XXH3 value, one-shot and streamed") {
  const uint64_t seed = frugal_test::test_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  // Past every internal boundary of XXH3: 0-16, 17-128, 129-240 bytes,
  // stripes (64), blocks (1024), and many blocks.
  std::vector<size_t> sizes{0, 1, 3, 16, 17, 128, 129, 240, 241, 1023, 1024, 1025, 4096, 65537, (size_t{1} << 20) + 7};
  for (int i = 0; i < 40; ++i) sizes.push_back(std::uniform_int_distribution<size_t>(0, 300000)(rng));
  std::vector<uint8_t> buffer((size_t{1} << 20) + 64);
  for (auto& b : buffer) b = static_cast<uint8_t>(rng());
  INFO("this CPU runs " << runnable().size() << " loop(s)");
  for (const size_t size : sizes) {
    const size_t offset = std::uniform_int_distribution<size_t>(0, 63)(rng);  // any alignment
    const uint8_t* data = buffer.data() + offset;
    const size_t n = std::min(size, buffer.size() - offset);
    const uint64_t expected = frugal::sdk::xxh3(data, n);
    for (const Isa isa : runnable()) {
      CAPTURE(n, offset, static_cast<int>(isa));
      CHECK(frugal::checksum::xxh3(data, n, isa) == expected);
      frugal::checksum::Stream stream(isa);
      for (size_t at = 0; at < n;) {
        const size_t piece = std::min(n - at, std::uniform_int_distribution<size_t>(1, 70000)(rng));
        stream.update(data + at, piece);
        at += piece;
      }
      CHECK(stream.digest() == expected);
    }
  }
}

TEST_CASE("the loop chosen is the best this CPU runs") {
  const Isa best = frugal::checksum::best_isa();
#if defined(__x86_64__)
  CHECK(best == (__builtin_cpu_supports("avx2") ? Isa::avx2 : Isa::baseline));
#else
  CHECK(best == Isa::baseline);
#endif
}
