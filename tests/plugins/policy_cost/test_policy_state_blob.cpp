// sdk/state_blob.hpp: the checksum, bit-exact fields, and every way a blob can
// be wrong (truncated, flipped, another strategy's, a newer format,
// trailing bytes); and each algorithm's state through it.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "algorithms/early_stopping.hpp"
#include "algorithms/loss_window.hpp"
#include "algorithms/window_improvement.hpp"
#include "algorithms/young_daly.hpp"
#include "frugal/sdk/state_blob.hpp"
#include "policy_test_support.hpp"

using frugal::sdk::StateReader;
using frugal::sdk::StateWriter;
using frugal::test::failure;
using namespace frugal::policy;

namespace {

std::span<const std::byte> bytes_of(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

std::vector<std::byte> sample_blob() {
  StateWriter w("TEST", 3);
  w.u8(7).u32(0xDEADBEEF).u64(UINT64_MAX).i64(-42).f64(-0.0).flag(true).text("hello");
  w.f64(std::numeric_limits<double>::denorm_min()).f64(std::numeric_limits<double>::infinity());
  w.f32(std::numeric_limits<float>::denorm_min());
  return std::move(w).finish();
}

void read_sample(std::span<const std::byte> blob) {
  StateReader r(blob, "TEST", 3, "test state");
  CHECK(r.u8("a") == 7);
  CHECK(r.u32("b") == 0xDEADBEEF);
  CHECK(r.u64("c") == UINT64_MAX);
  CHECK(r.i64("d") == -42);
  const double negative_zero = r.f64("e");
  CHECK(std::bit_cast<uint64_t>(negative_zero) == std::bit_cast<uint64_t>(-0.0));
  CHECK(r.flag("f"));
  CHECK(r.text("g", 100) == "hello");
  CHECK(r.f64("h") == std::numeric_limits<double>::denorm_min());
  CHECK(r.f64("i") == std::numeric_limits<double>::infinity());
  CHECK(r.f32("j") == std::numeric_limits<float>::denorm_min());
  r.finish();
}

}  // namespace

TEST_CASE("the checksum is XXH3-64 with seed 0, the core's") {
  CHECK(frugal::sdk::xxh3(bytes_of("")) == 0x2D06800538D394C2ULL);  // xxHash's published empty-input value
  const std::string text = "The quick brown fox jumps over the lazy dog";
  CHECK(frugal::sdk::xxh3(bytes_of(text)) == frugal::sdk::xxh3(text.data(), text.size()));
  frugal::sdk::Xxh3Stream stream;
  stream.update(text.data(), 10);
  stream.update(text.data() + 10, text.size() - 10);
  CHECK(stream.digest() == frugal::sdk::xxh3(bytes_of(text)));
}

TEST_CASE("a blob is magic, version, little-endian fields and a trailing XXH3-64; fields read back bit-exact") {
  const std::vector<std::byte> blob = sample_blob();
  REQUIRE(blob.size() == 4 + 4 + 1 + 4 + 8 + 8 + 8 + 1 + (4 + 5) + 8 + 8 + 4 + 8);
  uint64_t trailer = 0;
  for (std::size_t i = 0; i < 8; ++i) trailer |= std::to_integer<uint64_t>(blob[blob.size() - 8 + i]) << (8 * i);
  CHECK(trailer == frugal::sdk::xxh3(std::span(blob).first(blob.size() - 8)));
  CHECK(std::memcmp(blob.data(), "TEST", 4) == 0);
  CHECK(std::to_integer<int>(blob[4]) == 3);     // version, little-endian
  CHECK(std::to_integer<int>(blob[9]) == 0xEF);  // 0xDEADBEEF, low byte first
  read_sample(blob);
}

TEST_CASE("every flipped byte is caught, naming the problem") {
  const std::vector<std::byte> good = sample_blob();
  for (std::size_t i = 0; i < good.size(); ++i) {
    std::vector<std::byte> bad = good;
    bad[i] ^= std::byte{0x10};
    INFO("byte " << i);
    const auto [code, message] = failure([&] { StateReader(bad, "TEST", 3, "test state"); });
    if (i < 4) {
      CHECK(code == FRUGAL_ERR_INVALID_ARGUMENT);
      CHECK_THAT(message, Catch::Contains("another strategy"));
    } else if (i < 8) {
      CHECK(code == FRUGAL_ERR_INVALID_ARGUMENT);
      CHECK_THAT(message, Catch::Contains("format version"));
    } else {
      CHECK(code == FRUGAL_ERR_DATA_CORRUPTED);
      CHECK_THAT(message, Catch::Contains("checksum"));
    }
    CHECK_THAT(message, Catch::StartsWith("test state: "));
  }
}

TEST_CASE("truncated blobs, other magics, newer versions and trailing bytes are refused") {
  const std::vector<std::byte> good = sample_blob();
  for (std::size_t n = 0; n < good.size(); ++n) {
    INFO("first " << n << " bytes");
    const auto [code, message] = failure([&] { StateReader(std::span(good).first(n), "TEST", 3, "test state"); });
    CHECK(code == FRUGAL_ERR_DATA_CORRUPTED);
    CHECK_THAT(message, Catch::Contains(n < 16 ? "truncated" : "checksum"));
  }
  auto other = failure([&] { StateReader(good, "PCSP", 3, "spot_phase state"); });
  CHECK(other.first == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK_THAT(other.second, Catch::Contains("magic 'TEST' is not 'PCSP'"));
  auto newer = failure([&] { StateReader(good, "TEST", 2, "test state"); });
  CHECK(newer.first == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK_THAT(newer.second, Catch::Contains("format version 3, this build reads version 2"));

  // A well-formed blob with a field the reader does not expect left over.
  StateWriter w("TEST", 1);
  w.u32(1).u32(2);
  const std::vector<std::byte> longer = std::move(w).finish();
  auto trailing = failure([&] {
    StateReader r(longer, "TEST", 1, "test state");
    r.u32("one");
    r.finish();
  });
  CHECK(trailing.first == FRUGAL_ERR_DATA_CORRUPTED);
  CHECK_THAT(trailing.second, Catch::Contains("4 unread bytes"));
  // And one that ends before a field the reader expects.
  auto short_field = failure([&] {
    StateReader r(longer, "TEST", 1, "test state");
    r.u64("one");
    r.u64("two");
  });
  CHECK(short_field.first == FRUGAL_ERR_DATA_CORRUPTED);
  CHECK_THAT(short_field.second, Catch::Contains("truncated at field 'two'"));
  auto big_count = failure([&] {
    StateReader r(longer, "TEST", 1, "test state");
    r.count("samples", 1000, 8);
  });
  CHECK(big_count.first == FRUGAL_ERR_DATA_CORRUPTED);
  CHECK_THAT(big_count.second, Catch::Contains("'samples'"));
}

namespace {

// save -> load into a fresh object built like `like`; the reader must be exhausted.
template <class T>
T round_trip(const T& original, T fresh) {
  StateWriter w("ALGO", 1);
  original.save(w);
  const std::vector<std::byte> blob = std::move(w).finish();
  StateReader r(blob, "ALGO", 1, "algorithm state");
  fresh.load(r);
  r.finish();
  return fresh;
}

}  // namespace

TEST_CASE("each algorithm's state round-trips exactly and then behaves identically") {
  CheckpointCostModel model(60.0, 86400.0);
  model.observe_stall(123.456);
  model.observe_clock(5000.25);
  model.observe_restart();
  CHECK(round_trip(model, CheckpointCostModel(60.0, 86400.0)) == model);

  LossWindow window(6);
  for (int i = 0; i < 9; ++i) window.push(i * 1.5, 3.0 - 0.1 * i + (i % 3 == 0 ? 0.05 : 0.0));
  LossWindow restored_window = round_trip(window, LossWindow(6));
  CHECK(restored_window.mann_kendall_s() == window.mann_kendall_s());
  window.push(20.0, 1.0);
  restored_window.push(20.0, 1.0);
  std::vector<double> t1, l1, t2, l2;
  window.copy_to(t1, l1);
  restored_window.copy_to(t2, l2);
  CHECK(t1 == t2);
  CHECK(l1 == l2);
  CHECK(restored_window.mann_kendall_s() == window.mann_kendall_s());

  WindowImprovement windows(100.0);
  windows.restart(7.0);
  for (double t = 7; t < 250; t += 13) windows.add(t, 100.0 / (t + 1));
  WindowImprovement restored_windows = round_trip(windows, WindowImprovement(100.0));
  CHECK(restored_windows == windows);
  CHECK(restored_windows.add(307.0, 0.25) == windows.add(307.0, 0.25));
  CHECK(restored_windows.improvement() == windows.improvement());

  EarlyStopping stopping(4, 0.01, DeltaMode::relative);
  stopping.observe(2.0, 10);
  stopping.observe(2.1, 20);
  CHECK(round_trip(stopping, EarlyStopping(4, 0.01, DeltaMode::relative)) == stopping);
}

TEST_CASE("loaded fields are checked after the checksum: non-finite or out-of-order samples are corrupt") {
  StateWriter w("ALGO", 1);
  w.u64(2).f64(10.0).f64(1.0).f64(5.0).f64(1.0);  // times going back
  const std::vector<std::byte> blob = std::move(w).finish();
  LossWindow window(4);
  const auto [code, message] = failure([&] {
    StateReader r(blob, "ALGO", 1, "algorithm state");
    window.load(r);
  });
  CHECK(code == FRUGAL_ERR_DATA_CORRUPTED);
  CHECK_THAT(message, Catch::Contains("field 'sample time' is 5; it must be a finite number >= 10"));
  CHECK(window.size() == 0);  // unchanged

  StateWriter w2("ALGO", 1);
  w2.flag(true).f64(std::numeric_limits<double>::quiet_NaN()).i64(0).i64(0);
  const std::vector<std::byte> nan_best = std::move(w2).finish();
  EarlyStopping stopping(2, 0.0, DeltaMode::absolute);
  const auto nan = failure([&] {
    StateReader r(nan_best, "ALGO", 1, "algorithm state");
    stopping.load(r);
  });
  CHECK(nan.first == FRUGAL_ERR_DATA_CORRUPTED);
  CHECK_FALSE(stopping.has_best());
}
