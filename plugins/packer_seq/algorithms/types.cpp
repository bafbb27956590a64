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
    case Algorithm::refined: return "refined";
    case Algorithm::best: return "best";
  }
  return "unknown";
}

namespace {
constexpr Algorithm kAllAlgorithms[] = {Algorithm::naive_first_fit,
                                        Algorithm::first_fit_decreasing,
                                        Algorithm::best_fit_decreasing,
                                        Algorithm::spfhp,
                                        Algorithm::lpfhp,
                                        Algorithm::refined,
                                        Algorithm::best};
}  // namespace

std::span<const Algorithm> all_algorithms() noexcept { return kAllAlgorithms; }

Algorithm algorithm_from_name(std::string_view name) {
  std::string choices;
  for (const Algorithm a : kAllAlgorithms) {
    if (name == algorithm_name(a)) return a;
    choices += choices.empty() ? "" : ", ";
    choices += algorithm_name(a);
  }
  throw PackError("unknown packing algorithm '" + std::string(name) + "' (choose one of: " + choices + ")");
}

}  // namespace frugal::packer
