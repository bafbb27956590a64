// XXH3-64 with its bulk loop chosen at run time (AVX2 where the CPU has
// it, the x86-64 baseline otherwise): the same values as
// frugal::sdk::xxh3 and Xxh3Stream (frugal/sdk/checksum.hpp), about 1.5x
// faster on large buffers where AVX2 is there.
#pragma once

#include <cstddef>
#include <cstdint>

#include "frugal/sdk/checksum.hpp"

namespace frugal::checksum {

// Which loop the calls below take.
enum class Isa { baseline, avx2 };
// The best this CPU runs (checked once).
Isa best_isa() noexcept;

// XXH3-64 (seed 0) of `size` bytes at `data`, with `isa`'s loop (which
// must be one this CPU runs: see best_isa).
uint64_t xxh3(const void* data, size_t size, Isa isa = best_isa()) noexcept;

// Incremental XXH3-64: the value of xxh3() over everything fed.
class Stream {
 public:
  explicit Stream(Isa isa = best_isa()) noexcept;
  void update(const void* data, size_t size) noexcept;
  [[nodiscard]] uint64_t digest() const noexcept;

 private:
  XXH3_state_t state_{};
  Isa isa_;
};

}  // namespace frugal::checksum
