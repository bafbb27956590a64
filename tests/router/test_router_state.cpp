// The bias balancer's state blob: round trip, and every corruption rejected.
#include <catch2/catch.hpp>

#include <vector>

#include "algorithms/bias_balancer.hpp"

using namespace frugal::router;

namespace {

BiasBalancer trained() {
  BiasBalancer b(6, 0.125f);
  b.update(std::vector<int64_t>{9, 1, 4, 4, 0, 6});
  b.update(std::vector<int64_t>{2, 2, 7, 1, 5, 7});
  return b;
}

}  // namespace

TEST_CASE("bias state: export then import gives the same balancer, little-endian layout") {
  const BiasBalancer b = trained();
  const auto blob = b.export_state();
  REQUIRE(blob.size() == 24 + 4 * 6 + 4);
  CHECK(std::to_integer<char>(blob[0]) == 'F');
  CHECK(std::to_integer<int>(blob[8]) == 6);   // experts, low byte first
  CHECK(std::to_integer<int>(blob[16]) == 2);  // steps
  const BiasBalancer back = BiasBalancer::import_state(blob);
  CHECK(back == b);
  CHECK(back.export_state() == blob);
  // The imported balancer continues exactly as the original.
  BiasBalancer a = b, c = back;
  a.update(std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  c.update(std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  CHECK(a == c);
}

TEST_CASE("bias state: flipped bits, truncation, extension and other versions are rejected") {
  const auto blob = trained().export_state();
  for (std::size_t i = 0; i < blob.size(); ++i) {
    for (int bit : {0, 7}) {
      auto bad = blob;
      bad[i] ^= std::byte{static_cast<unsigned char>(1u << bit)};
      CHECK_THROWS_AS(BiasBalancer::import_state(bad), StateError);
    }
  }
  for (std::size_t n : {std::size_t{0}, std::size_t{7}, std::size_t{27}, blob.size() - 1}) {
    CHECK_THROWS_AS(BiasBalancer::import_state(std::span(blob).first(n)), StateError);
  }
  auto longer = blob;
  longer.push_back(std::byte{0});
  CHECK_THROWS_WITH(BiasBalancer::import_state(longer), Catch::Contains("size"));
  auto newer = blob;
  newer[4] = std::byte{2};
  CHECK_THROWS_WITH(BiasBalancer::import_state(newer), Catch::Contains("version 2"));
}
