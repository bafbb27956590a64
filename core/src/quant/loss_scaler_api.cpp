// frugal_loss_scaler_*: the C face of quant/loss_scaler.hpp.
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>

#include "error.hpp"
#include "frugal/loss_scaler.h"
#include "frugal/options.h"
#include "options.hpp"
#include "quant/loss_scaler.hpp"
#include "sized_structs.hpp"
#include "state_frame.hpp"

struct frugal_loss_scaler {
  frugal::quant::LossScaler scaler;
};

namespace {

using frugal::quant::LossScalerConfig;
using frugal::quant::LossScalerState;

// The state as bytes, framed like the run scheduler's blob.
constexpr frugal::BlobFrame kFrame{"FRLS", 1, "loss scaler state"};

std::vector<std::byte> state_blob(const LossScalerState& s) {
  frugal::StateWriter out = frugal::begin_sealed(kFrame);
  out.f64(s.scale).i64(s.clean_steps).i64(s.skipped_steps);
  return std::move(out).finish();
}

// Every field checked as LossScaler::restore checks it, named, before the
// scaler changes.
LossScalerState parse_state_blob(std::span<const std::byte> blob, const LossScalerConfig& config) {
  frugal::StateReader in = frugal::open_sealed(blob, kFrame);
  LossScalerState s;
  s.scale = in.f64_in("scale", config.min_scale, config.max_scale);
  s.clean_steps = in.i64_in("clean_steps", 0, config.growth_interval - 1);
  s.skipped_steps = in.i64_in("skipped_steps", 0, std::numeric_limits<int64_t>::max());
  in.finish();
  return s;
}

// Reads the options over the defaults; an unknown name or a wrong type is
// an error naming it (options_check_known, the typed getters).
LossScalerConfig read_config(const frugal_options* options) {
  LossScalerConfig c;
  if (options == nullptr) return c;
  static constexpr const char* kKnown[] = {"init_scale",      "growth_factor", "backoff_factor",
                                           "growth_interval", "min_scale",     "max_scale"};
  frugal::rethrow_if_error(frugal::options_check_known(options, kKnown, std::size(kKnown), "loss scaler"), "");
  const auto real = [&](const char* name, double& field) {
    frugal::rethrow_if_error(frugal_options_get_double(options, name, field, &field), "loss scaler: ");
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

FRUGAL_API frugal_error* frugal_loss_scaler_update(frugal_loss_scaler* scaler, int32_t found_inf, int32_t* apply_step) {
  return frugal::guard("frugal_loss_scaler_update", [&] {
    frugal::require_non_null(scaler, "frugal_loss_scaler_update", "scaler");
    const bool apply = scaler->scaler.update(found_inf != 0);
    if (apply_step != nullptr) *apply_step = apply ? 1 : 0;
  });
}

FRUGAL_API frugal_error* frugal_loss_scaler_get_status(const frugal_loss_scaler* scaler,
                                                       frugal_loss_scaler_status* out) {
  constexpr const char* kFn = "frugal_loss_scaler_get_status";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(scaler, kFn, "scaler");
    const auto& s = scaler->scaler.state();
    frugal::write_sized(
        out, frugal_loss_scaler_status{sizeof(frugal_loss_scaler_status), s.scale, s.clean_steps, s.skipped_steps},
        kFn);
  });
}

FRUGAL_API frugal_error* frugal_loss_scaler_set_status(frugal_loss_scaler* scaler,
                                                       const frugal_loss_scaler_status* status) {
  constexpr const char* kFn = "frugal_loss_scaler_set_status";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(scaler, kFn, "scaler");
    frugal::require_non_null(status, kFn, "status");
    if (status->struct_size < sizeof(frugal_loss_scaler_status))
      frugal::fail(FRUGAL_ERR_ABI_MISMATCH, "{}: status->struct_size is {}; set it to sizeof the struct ({})", kFn,
                   status->struct_size, sizeof(frugal_loss_scaler_status));
    invalid_argument_as_error([&] {
      scaler->scaler.restore({status->scale, status->clean_steps, status->skipped_steps});
    });
  });
}

FRUGAL_API frugal_error* frugal_loss_scaler_export_state(const frugal_loss_scaler* scaler, void* buffer,
                                                         size_t capacity, size_t* size) {
  constexpr const char* kFn = "frugal_loss_scaler_export_state";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(scaler, kFn, "scaler");
    frugal::require_non_null(size, kFn, "size");
    // *size is written even with OUT_OF_RANGE: the caller needs it to retry.
    frugal::copy_out(state_blob(scaler->scaler.state()), buffer, capacity, size, kFrame.subject);
  });
}

FRUGAL_API frugal_error* frugal_loss_scaler_import_state(frugal_loss_scaler* scaler, const void* data, size_t size) {
  constexpr const char* kFn = "frugal_loss_scaler_import_state";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(scaler, kFn, "scaler");
    if (size > 0) frugal::require_non_null(data, kFn, "data");
    const std::span<const std::byte> blob(static_cast<const std::byte*>(data), size);
    const LossScalerState parsed = parse_state_blob(blob, scaler->scaler.config());
    invalid_argument_as_error([&] { scaler->scaler.restore(parsed); });  // checked again: the same rules
  });
}

FRUGAL_API void frugal_loss_scaler_destroy(frugal_loss_scaler* scaler) { delete scaler; }

}  // extern "C"
