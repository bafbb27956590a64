// All parameters of a model in one contiguous buffer (one checkpoint
// tensor), gradients in a second buffer of the same layout, and named
// views into both. Declare everything first, then allocate once: views
// are spans, so the buffers must never move afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "splitmix.hpp"

namespace frugal_demo {

template <class T>
struct ParamView {
  std::span<T> value;
  std::span<T> grad;
};

struct ParamEntry {
  std::string name;
  std::size_t offset = 0;
  std::size_t size = 0;
  bool decay = false;  // AdamW weight decay applies (matrices, not norms/biases)
};

template <class T>
class ParameterSet {
 public:
  ParameterSet() = default;
  ParameterSet(const ParameterSet&) = delete;
  ParameterSet& operator=(const ParameterSet&) = delete;

  // Returns the entry index. Throws std::logic_error after allocate().
  std::size_t declare(std::string name, std::size_t size, bool decay);
  void allocate();

  ParamView<T> view(std::size_t index);

  std::span<T> values() { return values_; }
  [[nodiscard]] std::span<const T> values() const { return values_; }
  std::span<T> grads() { return grads_; }
  [[nodiscard]] std::span<const T> grads() const { return grads_; }
  [[nodiscard]] const std::vector<ParamEntry>& entries() const { return entries_; }
  [[nodiscard]] std::vector<std::uint8_t> decay_mask() const;  // one flag per scalar
  void zero_grad();

 private:
  std::vector<ParamEntry> entries_;
  std::vector<T> values_;
  std::vector<T> grads_;
  std::size_t total_ = 0;
  bool allocated_ = false;
};

// Deterministic normal samples (own Box-Muller on splitmix64, so the same
// seed gives the same model with every standard library).
class InitRng {
 public:
  explicit InitRng(std::uint64_t seed) : bits_(seed) {}
  std::uint64_t next_u64() { return bits_.next(); }
  double uniform();  // in (0, 1)
  double normal();

 private:
  SplitMix64 bits_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

template <class T>
void fill_normal(std::span<T> out, double stddev, InitRng& rng);

}  // namespace frugal_demo
