#include "algorithms/types.hpp"

#include <string>

namespace frugal::router {

void validate(const Routing& r) {
  if (r.tokens < 0 || r.experts <= 0 || r.k < 0) {
    throw RouterError("routing: tokens " + std::to_string(r.tokens) + ", experts " + std::to_string(r.experts) +
                      ", k " + std::to_string(r.k) + " are not valid sizes");
  }
  const auto slots = static_cast<std::size_t>(r.slots());
  if (r.expert.size() != slots || r.weight.size() != slots) {
    throw RouterError("routing: " + std::to_string(r.expert.size()) + " expert ids and " +
                      std::to_string(r.weight.size()) + " weights, expected tokens * k = " + std::to_string(slots));
  }
  for (std::size_t s = 0; s < slots; ++s) {
    if (r.expert[s] < 0 || r.expert[s] >= r.experts) {
      throw RouterError("routing: slot " + std::to_string(s) + " names expert " + std::to_string(r.expert[s]) +
                        ", not in [0, " + std::to_string(r.experts) + ")");
    }
  }
}

}  // namespace frugal::router
