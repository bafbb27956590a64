// frugal_loss_scaler_*: the C face of quant/loss_scaler.hpp.
#include <cmath>
#include <stdexcept>

#include "error.hpp"
#include "frugal/loss_scaler.h"
#include "frugal/options.h"
#include "options.hpp"
#include "quant/loss_scaler.hpp"
#include "sized_structs.hpp"

struct frugal_loss_scaler {
  frugal::quant::LossScaler scaler;
};

namespace {

using frugal::quant::LossScalerConfig;

// Reads the options over the defaults; an unknown name or a wrong type is
// an error naming it (options_check_known, the typed getters).
LossScalerConfig read_config(const frugal_options* options) {
  LossScalerConfig c;
  if (options == nullptr) return c;
  static constexpr const char* kKnown[] = {"init_scale",      "growth_factor", "backoff_factor",
                                           "growth_interval", "min_scale",     "max_scale"};
  frugal::rethrow_if_error(frugal::options_check_known(options, kKnown, std::size(kKnown), "loss scaler"), "");
  const auto real = [&](const char* name, double& field) {
    frugal::rethrow_if_error(frugal_options_get_double(options, name, field, &field),
                             "loss scaler: ");
  };
  real("init_scale", c.init_scale);
  real("growth_factor", c.growth_factor);
  real("backoff_factor", c.backoff_factor);
  real("min_scale", c.min_scale);
  real("max_scale", c.max_scale);
  frugal::rethrow_if_error(frugal_options_get_int(options, "growth_interval", c.growth_interval, &c.growth_interval),
                           "loss scaler: ");
  return c;
}

// The scaler's checks throw std::invalid_argument; the C API reports them
// as INVALID_ARGUMENT with the same message.
template <typename Body>
void invalid_argument_as_error(Body&& body) {
  try {
    body();
  } catch (const std::invalid_argument& e) {
    frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}", e.what());
  }
}

}  // namespace

extern "C" {

FRUGAL_API frugal_error* frugal_loss_scaler_create(const frugal_options* options, frugal_loss_scaler** out) {
  return frugal::guard("frugal_loss_scaler_create", [&] {
    frugal::require_non_null(out, "frugal_loss_scaler_create", "out");
    const LossScalerConfig config = read_config(options);
    invalid_argument_as_error([&] { *out = new frugal_loss_scaler{frugal::quant::LossScaler(config)}; });
  });
}

FRUGAL_API double frugal_loss_scaler_scale(const frugal_loss_scaler* scaler) {
  return scaler != nullptr ? scaler->scaler.scale() : std::nan("");
}

FRUGAL_API frugal_error* frugal_loss_scaler_update(frugal_loss_scaler* scaler, int32_t found_inf,
                                                   int32_t* apply_step) {
  return frugal::guard("frugal_loss_scaler_update", [&] {
    frugal::require_non_null(scaler, "frugal_loss_scaler_update", "scaler");
    const bool apply = scaler->scaler.update(found_inf != 0);
    if (apply_step != nullptr) *apply_step = apply ? 1 : 0;
  });
}

FRUGAL_API frugal_error* frugal_loss_scaler_get_state(const frugal_loss_scaler* scaler,
                                                      frugal_loss_scaler_state* out) {
  constexpr const char* kFn = "frugal_loss_scaler_get_state";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(scaler, kFn, "scaler");
    const auto& s = scaler->scaler.state();
    frugal::write_sized(out, frugal_loss_scaler_state{sizeof(frugal_loss_scaler_state), s.scale, s.clean_steps,
                                                      s.skipped_steps},
                        kFn);
  });
}

FRUGAL_API frugal_error* frugal_loss_scaler_set_state(frugal_loss_scaler* scaler,
                                                      const frugal_loss_scaler_state* state) {
  constexpr const char* kFn = "frugal_loss_scaler_set_state";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(scaler, kFn, "scaler");
    frugal::require_non_null(state, kFn, "state");
    if (state->struct_size < sizeof(frugal_loss_scaler_state))
      frugal::fail(FRUGAL_ERR_ABI_MISMATCH, "{}: state->struct_size is {}; set it to sizeof the struct ({})", kFn,
                   state->struct_size, sizeof(frugal_loss_scaler_state));
    invalid_argument_as_error([&] {
      scaler->scaler.restore({state->scale, state->clean_steps, state->skipped_steps});
    });
  });
}

FRUGAL_API void frugal_loss_scaler_destroy(frugal_loss_scaler* scaler) { delete scaler; }

}  // extern "C"
