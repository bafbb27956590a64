// Core value types of the MoE router: the error it throws and the per-token
// routing decision every token-choice router returns.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

namespace frugal::router {

// Thrown for invalid input or options; what() names the offending value
// ("k 9 exceeds the 8 experts").
class RouterError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A token-choice routing decision: token t's j-th choice is expert
// expert[t * k + j] with gate weight weight[t * k + j]. Choices are in
// selection order (best first). Slot s = t * k + j names an assignment
// throughout the dispatch plan.
struct Routing {
  int64_t tokens = 0;
  int64_t experts = 0;
  int64_t k = 0;
  std::vector<int32_t> expert;  // [tokens * k], each in [0, experts)
  std::vector<float> weight;    // [tokens * k]

  [[nodiscard]] int64_t slots() const noexcept { return tokens * k; }
  [[nodiscard]] std::span<const int32_t> experts_of(int64_t t) const {
    return std::span<const int32_t>(expert).subspan(static_cast<std::size_t>(t * k), static_cast<std::size_t>(k));
  }
  [[nodiscard]] std::span<const float> weights_of(int64_t t) const {
    return std::span<const float>(weight).subspan(static_cast<std::size_t>(t * k), static_cast<std::size_t>(k));
  }
};

// Checks sizes and expert ids (throws RouterError); for routings built by
// hand or received from elsewhere.
void validate(const Routing& r);

}  // namespace frugal::router
