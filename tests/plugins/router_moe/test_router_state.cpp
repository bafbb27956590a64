// The bias balancer's state blob: round trip, and every corruption rejected.
#include <catch2/catch.hpp>

#include <limits>
#include <vector>

#include "algorithms/bias_balancer.hpp"
#include "frugal/sdk/state_blob.hpp"

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
  // magic, version, u64 experts, f32 gamma, u64 steps, the biases, XXH3-64.
  REQUIRE(blob.size() == 8 + 8 + 4 + 8 + 4 * 6 + 8);
  CHECK(std::to_integer<char>(blob[0]) == 'F');
  CHECK(std::to_integer<int>(blob[4]) == 2);   // version 2
  CHECK(std::to_integer<int>(blob[8]) == 6);   // experts, low byte first
  CHECK(std::to_integer<int>(blob[20]) == 2);  // steps
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
      CHECK_THROWS_AS(BiasBalancer::import_state(bad), frugal::sdk::PluginError);
    }
  }
  for (std::size_t n : {std::size_t{0}, std::size_t{7}, std::size_t{27}, blob.size() - 1}) {
    CHECK_THROWS_AS(BiasBalancer::import_state(std::span(blob).first(n)), frugal::sdk::PluginError);
  }
  auto longer = blob;
  longer.push_back(std::byte{0});
  CHECK_THROWS_WITH(BiasBalancer::import_state(longer), Catch::Contains("checksum"));
  auto newer = blob;
  newer[4] = std::byte{3};
  CHECK_THROWS_WITH(BiasBalancer::import_state(newer), Catch::Contains("format version 3, this build reads version 2"));
}

TEST_CASE("bias state: fields are checked behind the checksum, naming the field") {
  auto crafted = [](uint64_t experts, float gamma, float bias) {
    frugal::sdk::StateWriter w("FRBB", 2);
    w.u64(experts).f32(gamma).u64(3);
    for (uint64_t i = 0; i < experts; ++i) w.f32(bias);
    return std::move(w).finish();
  };
  const BiasBalancer ok = BiasBalancer::import_state(crafted(2, 0.5f, 1.0f));
  CHECK(ok.bias()[1] == 1.0f);
  CHECK(ok.steps() == 3);
  CHECK_THROWS_WITH(BiasBalancer::import_state(crafted(0, 0.5f, 0.0f)), Catch::Contains("field 'experts' is 0"));
  CHECK_THROWS_WITH(BiasBalancer::import_state(crafted(2, -1.0f, 0.0f)),
                    Catch::Contains("field 'gamma' is -1; it must be a finite number >= 0"));
  CHECK_THROWS_WITH(BiasBalancer::import_state(crafted(2, 0.5f, std::numeric_limits<float>::quiet_NaN())),
                    Catch::Contains("field 'bias' is nan"));
}
