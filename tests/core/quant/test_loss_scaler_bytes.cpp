// The loss scaler's state as bytes (frugal_loss_scaler_export_state /
// _import_state): the layout, the size protocol, a round trip into a twin
// that then scales identically, and every refused blob (truncated, another
// kind's, a flipped byte, a newer format, checksum-valid fields out of
// range) named and changing nothing.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "test_helpers.hpp"

using namespace frugal;
using namespace frugal::test;

namespace {

host::LossScalerPtr scaler_with_interval(int64_t interval) {
  auto options = host::make_options();
  host::check(frugal_options_set_double(options.get(), "init_scale", 4096.0));
  host::check(frugal_options_set_int(options.get(), "growth_interval", interval));
  return host::make_loss_scaler(options.get());
}

std::vector<uint8_t> export_bytes(const frugal_loss_scaler* scaler) {
  return exported_state([&](void* b, size_t c, size_t* s) { return frugal_loss_scaler_export_state(scaler, b, c, s); });
}

void put(std::vector<uint8_t>& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// `body` with its checksum appended, as a writer seals it: so a refusal is
// the field check's, not the checksum's.
std::vector<uint8_t> sealed(std::vector<uint8_t> body) {
  put(body, XXH3_64bits(body.data(), body.size()), 8);
  return body;
}

std::vector<uint8_t> crafted(double scale, int64_t clean, int64_t skipped, uint32_t format = 1,
                             const char* magic = "FRLS", size_t extra = 0) {
  std::vector<uint8_t> out(magic, magic + 4);
  put(out, format, 4);
  put(out, std::bit_cast<uint64_t>(scale), 8);
  put(out, static_cast<uint64_t>(clean), 8);
  put(out, static_cast<uint64_t>(skipped), 8);
  out.insert(out.end(), extra, 0);
  return sealed(std::move(out));
}

}  // namespace

TEST_CASE("loss scaler bytes: the layout, the size protocol and a round trip into a twin") {
  auto scaler = scaler_with_interval(3);
  for (const int inf : {1, 0, 0, 1, 0}) host::check(frugal_loss_scaler_update(scaler.get(), inf, nullptr));
  const frugal_loss_scaler_status saved = loss_scaler_status(scaler.get());
  REQUIRE(saved.scale == 1024.0);  // 4096, overflow 2048, two clean, overflow 1024, one clean
  REQUIRE(saved.clean_steps == 1);
  REQUIRE(saved.skipped_steps == 2);

  const auto blob = export_bytes(scaler.get());
  CHECK(blob == crafted(1024.0, 1, 2));  // "FRLS", format 1, the three fields, XXH3-64: 40 bytes
  CHECK(blob.size() == 40);

  // Too small a buffer: OUT_OF_RANGE with the size, nothing written.
  std::vector<uint8_t> small(39, 0xEE);
  size_t size = 0;
  expect_error(frugal_loss_scaler_export_state(scaler.get(), small.data(), small.size(), &size),
               FRUGAL_ERR_OUT_OF_RANGE, {"loss scaler state takes 40 bytes; the buffer holds 39"});
  CHECK(size == 40);
  CHECK(small == std::vector<uint8_t>(39, 0xEE));
  expect_error(frugal_loss_scaler_export_state(scaler.get(), nullptr, 0, nullptr), FRUGAL_ERR_INVALID_ARGUMENT,
               {"size"});

  auto twin = scaler_with_interval(3);
  host::check(frugal_loss_scaler_import_state(twin.get(), blob.data(), blob.size()));
  const frugal_loss_scaler_status restored = loss_scaler_status(twin.get());
  CHECK(restored.scale == saved.scale);
  CHECK(restored.clean_steps == saved.clean_steps);
  CHECK(restored.skipped_steps == saved.skipped_steps);
  for (const int inf : {0, 0, 1, 0, 0, 0}) {
    int32_t apply_a = -1, apply_b = -1;
    host::check(frugal_loss_scaler_update(scaler.get(), inf, &apply_a));
    host::check(frugal_loss_scaler_update(twin.get(), inf, &apply_b));
    CHECK(apply_a == apply_b);
    CHECK(frugal_loss_scaler_scale(twin.get()) == frugal_loss_scaler_scale(scaler.get()));
  }
  CHECK(export_bytes(twin.get()) == export_bytes(scaler.get()));
}

TEST_CASE("loss scaler bytes: a refused blob is named and changes nothing") {
  auto scaler = scaler_with_interval(5);
  host::check(frugal_loss_scaler_update(scaler.get(), 1, nullptr));
  const auto before = export_bytes(scaler.get());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<uint8_t> flipped = crafted(8.0, 1, 1);
  flipped[12] ^= 0x40;

  const struct {
    const char* what;
    std::vector<uint8_t> blob;
    int32_t code;
    const char* message;
  } cases[] = {
      {"empty", {}, FRUGAL_ERR_DATA_CORRUPTED, "loss scaler state: truncated: 0 bytes, a blob has at least 16"},
      {"cut short (the checksum no longer matches)", std::vector<uint8_t>(before.begin(), before.begin() + 20),
       FRUGAL_ERR_DATA_CORRUPTED, "loss scaler state: checksum mismatch"},
      {"a field missing", sealed(std::vector<uint8_t>(before.begin(), before.begin() + 24)), FRUGAL_ERR_DATA_CORRUPTED,
       "loss scaler state: truncated at field 'skipped_steps' (offset 24)"},
      {"another kind's blob", crafted(8.0, 1, 1, 1, "FRSC"), FRUGAL_ERR_DATA_CORRUPTED,
       "loss scaler state: magic 'FRSC' is not 'FRLS' (a blob of another kind)"},
      {"a flipped byte", flipped, FRUGAL_ERR_DATA_CORRUPTED, "loss scaler state: checksum mismatch"},
      {"a newer format", crafted(8.0, 1, 1, 2), FRUGAL_ERR_UNSUPPORTED,
       "loss scaler state: format version 2, this build reads version 1"},
      {"a NaN scale", crafted(nan, 1, 1), FRUGAL_ERR_DATA_CORRUPTED,
       "loss scaler state: field 'scale' is nan; it must be a finite number"},
      {"an infinite scale", crafted(std::numeric_limits<double>::infinity(), 1, 1), FRUGAL_ERR_DATA_CORRUPTED,
       "field 'scale' is inf"},
      {"a scale below min_scale", crafted(0.5, 1, 1), FRUGAL_ERR_DATA_CORRUPTED,
       "loss scaler state: field 'scale' is 0.5; it must be in [1, 16777216]"},
      {"a scale above max_scale", crafted(1e9, 1, 1), FRUGAL_ERR_DATA_CORRUPTED, "it must be in [1, 16777216]"},
      {"clean_steps at growth_interval", crafted(8.0, 5, 1), FRUGAL_ERR_DATA_CORRUPTED,
       "loss scaler state: field 'clean_steps' is 5; it must be in [0, 4]"},
      {"negative clean_steps", crafted(8.0, -1, 1), FRUGAL_ERR_DATA_CORRUPTED, "field 'clean_steps' is -1"},
      {"negative skipped_steps", crafted(8.0, 1, -3), FRUGAL_ERR_DATA_CORRUPTED, "field 'skipped_steps' is -3"},
      {"bytes after the fields", crafted(8.0, 1, 1, 1, "FRLS", 4), FRUGAL_ERR_DATA_CORRUPTED,
       "loss scaler state: 4 unread bytes after the last field"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    expect_error(frugal_loss_scaler_import_state(scaler.get(), c.blob.data(), c.blob.size()), c.code, {c.message});
    CHECK(export_bytes(scaler.get()) == before);
  }
  expect_error(frugal_loss_scaler_import_state(scaler.get(), nullptr, 8), FRUGAL_ERR_INVALID_ARGUMENT, {"data"});
  // The same blob with valid fields is taken.
  const auto good = crafted(8.0, 4, 7);
  host::check(frugal_loss_scaler_import_state(scaler.get(), good.data(), good.size()));
  CHECK(loss_scaler_status(scaler.get()).skipped_steps == 7);
  CHECK(frugal_loss_scaler_scale(scaler.get()) == 8.0);
}
