#include "algorithms/types.hpp"

namespace frugal::packer {

std::span<const int64_t> PackResult::pack(std::size_t p) const {
  const auto begin = static_cast<std::size_t>(offsets.at(p));
  const auto end = static_cast<std::size_t>(offsets.at(p + 1));
  return std::span<const int64_t>(items).subspan(begin, end - begin);
}

std::vector<std::vector<int64_t>> PackResult::nested() const {
  std::vector<std::vector<int64_t>> out;
  out.reserve(packs());
  for (std::size_t p = 0; p < packs(); ++p) {
    auto s = pack(p);
    out.emplace_back(s.begin(), s.end());
  }
  return out;
}

const char* algorithm_name(Algorithm a) noexcept {
  switch (a) {
    case Algorithm::naive_first_fit: return "naive_first_fit";
    case Algorithm::first_fit_decreasing: return "ffd";
    case Algorithm::best_fit_decreasing: return "bfd";
    case Algorithm::spfhp: return "spfhp";
    case Algorithm::lpfhp: return "lpfhp";
  }
  return "unknown";
}

}  // namespace frugal::packer
