// The loss scaler through the C API: a hand-computed sequence, PyTorch's
// defaults, restore, and bad configurations.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "test_helpers.hpp"

using namespace frugal;
using namespace frugal::test;

namespace {

host::LossScalerPtr scaler_with(std::initializer_list<std::pair<const char*, double>> reals, int64_t interval) {
  auto options = host::make_options();
  for (const auto& [name, value] : reals) host::check(frugal_options_set_double(options.get(), name, value));
  host::check(frugal_options_set_int(options.get(), "growth_interval", interval));
  return host::make_loss_scaler(options.get());
}

}  // namespace

TEST_CASE("loss scaler: hand-computed sequence") {
  auto s = scaler_with(
      {{"init_scale", 8}, {"growth_factor", 2}, {"backoff_factor", 0.5}, {"min_scale", 1}, {"max_scale", 32}}, 3);
  struct Step {
    bool found_inf;
    double scale;
    int64_t clean;
  };
  const std::vector<Step> steps{
      {false, 8, 1},  {false, 8, 2},  {false, 16, 0},  // growth after 3 clean steps
      {false, 16, 1}, {true, 8, 0},                    // overflow: back off, counter reset
      {false, 8, 1},  {false, 8, 2},  {false, 16, 0}, {false, 16, 1}, {false, 16, 2}, {false, 32, 0},
      {false, 32, 1}, {false, 32, 2}, {false, 32, 0},  // at max_scale: stays, counter still resets
      {true, 16, 0},  {true, 8, 0},   {true, 4, 0},   {true, 2, 0},   {true, 1, 0},   {true, 1, 0},  // min_scale floor
      {false, 1, 1},  {false, 1, 2},  {false, 2, 0},
  };
  int64_t skipped = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    INFO("step " << i);
    int32_t apply = -1;
    host::check(frugal_loss_scaler_update(s.get(), steps[i].found_inf ? 1 : 0, &apply));
    REQUIRE(apply == (steps[i].found_inf ? 0 : 1));
    skipped += steps[i].found_inf ? 1 : 0;
    REQUIRE(frugal_loss_scaler_scale(s.get()) == steps[i].scale);
    const auto st = loss_scaler_status(s.get());
    REQUIRE(st.scale == steps[i].scale);
    REQUIRE(st.clean_steps == steps[i].clean);
    REQUIRE(st.skipped_steps == skipped);
  }
  host::check(frugal_loss_scaler_update(s.get(), 0, nullptr));  // apply_step may be NULL

  // Restore, and restores that do not fit the configuration change nothing.
  frugal_loss_scaler_status saved{sizeof(frugal_loss_scaler_status), 4.0, 2, 9};
  host::check(frugal_loss_scaler_set_status(s.get(), &saved));
  host::check(frugal_loss_scaler_update(s.get(), 0, nullptr));
  CHECK(frugal_loss_scaler_scale(s.get()) == 8.0);
  CHECK(loss_scaler_status(s.get()).skipped_steps == 9);
  for (const frugal_loss_scaler_status bad :
       {frugal_loss_scaler_status{sizeof saved, 64.0, 0, 0}, frugal_loss_scaler_status{sizeof saved, 4.0, 3, 0},
        frugal_loss_scaler_status{sizeof saved, 4.0, -1, 0}, frugal_loss_scaler_status{sizeof saved, 4.0, 0, -5}}) {
    const auto result = outcome(frugal_loss_scaler_set_status(s.get(), &bad));
    INFO(result.message);
    CHECK(result.code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(result.message.find("restored") != std::string::npos);
  }
  CHECK(frugal_loss_scaler_scale(s.get()) == 8.0);
  frugal_loss_scaler_status tiny{8, 4.0, 0, 0};
  CHECK(outcome(frugal_loss_scaler_set_status(s.get(), &tiny)).code == FRUGAL_ERR_ABI_MISMATCH);
}

TEST_CASE("loss scaler: PyTorch's defaults without options") {
  auto d = host::make_loss_scaler(nullptr);
  CHECK(frugal_loss_scaler_scale(d.get()) == 65536.0);
  for (int i = 0; i < 1999; ++i) host::check(frugal_loss_scaler_update(d.get(), 0, nullptr));
  CHECK(frugal_loss_scaler_scale(d.get()) == 65536.0);
  host::check(frugal_loss_scaler_update(d.get(), 0, nullptr));
  CHECK(frugal_loss_scaler_scale(d.get()) == 131072.0);
}

TEST_CASE("loss scaler: bad configurations name the option") {
  struct Case {
    const char* name;
    double value;
    const char* mention;
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (const Case c : {Case{"growth_factor", 1.0, "growth_factor"}, Case{"backoff_factor", 1.0, "backoff_factor"},
                       Case{"backoff_factor", 0.0, "backoff_factor"}, Case{"min_scale", 0.0, "min_scale"},
                       Case{"init_scale", 0.5, "init_scale"}, Case{"max_scale", inf, "max_scale"},
                       Case{"init_scale", std::nan(""), "init_scale"}}) {
    INFO(c.name << " = " << c.value);
    auto options = host::make_options();
    host::check(frugal_options_set_double(options.get(), c.name, c.value));
    frugal_loss_scaler* s = nullptr;
    const auto result = outcome(frugal_loss_scaler_create(options.get(), &s));
    INFO(result.message);
    CHECK(result.code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(result.message.find(c.mention) != std::string::npos);
    CHECK(s == nullptr);
  }
  auto options = host::make_options();
  host::check(frugal_options_set_int(options.get(), "growth_interval", 0));
  frugal_loss_scaler* s = nullptr;
  CHECK(outcome(frugal_loss_scaler_create(options.get(), &s)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  auto typo = host::make_options();
  host::check(frugal_options_set_double(typo.get(), "init_scal", 2.0));
  const auto result = outcome(frugal_loss_scaler_create(typo.get(), &s));
  CHECK(result.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(result.message.find("init_scal") != std::string::npos);
  CHECK(std::isnan(frugal_loss_scaler_scale(nullptr)));
}
