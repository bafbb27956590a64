// The seed of a randomized test: fresh on every run, so repeated runs cover
// new inputs; replayable, so a failure can be reproduced.
//
// Every randomized test prints its seed on failure (INFO or CAPTURE). Set
// FRUGAL_TEST_SEED to that number (decimal or 0x-hex) to run the same case
// again, e.g.
//   FRUGAL_TEST_SEED=0xf3fcecafa8d30c37 build/bin/test_demo_model "[gradcheck]"
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>

namespace frugal_test {

inline std::uint64_t test_seed() {
  if (const char* fixed = std::getenv("FRUGAL_TEST_SEED"); fixed != nullptr && *fixed != '\0')
    return std::strtoull(fixed, nullptr, 0);
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

// For tests seeding a 32-bit engine (std::mt19937): FRUGAL_TEST_SEED is
// then taken modulo 2^32, which is what they print.
inline std::uint32_t test_seed32() { return static_cast<std::uint32_t>(test_seed()); }

}  // namespace frugal_test
