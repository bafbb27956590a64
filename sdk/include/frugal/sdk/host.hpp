// frugal/sdk/host.hpp — small RAII helpers for C++ hosts over the C API:
// owning handles that destroy themselves and an exception carrying the
// frugal error code and message. Header-only; links against libfrugal.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "frugal/frugal.h"

namespace frugal::host {

// A failed frugal call, with its stable code.
class Exception : public std::runtime_error {
 public:
  Exception(int32_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int32_t code() const noexcept { return code_; }

 private:
  int32_t code_;
};

// Throws Exception (and frees the error) when a call failed.
inline void check(frugal_error* error) {
  if (error == nullptr) return;
  const int32_t code = frugal_error_code(error);
  std::string message = frugal_error_message(error);
  frugal_error_destroy(error);
  throw Exception(code, message);
}

struct ContextDeleter {
  void operator()(frugal_context* c) const noexcept { frugal_context_destroy(c); }
};
struct OptionsDeleter {
  void operator()(frugal_options* o) const noexcept { frugal_options_destroy(o); }
};
struct ScheduleDeleter {
  void operator()(frugal_schedule* s) const noexcept { frugal_schedule_destroy(s); }
};
struct ErrorDeleter {
  void operator()(frugal_error* e) const noexcept { frugal_error_destroy(e); }
};
struct ManagedTensorDeleter {
  void operator()(frugal_managed_tensor* t) const noexcept { frugal_managed_tensor_destroy(t); }
};
struct PackerDeleter {
  void operator()(frugal_packer* p) const noexcept { frugal_packer_destroy(p); }
};
struct PackPlanDeleter {
  void operator()(frugal_pack_plan* p) const noexcept { frugal_pack_plan_destroy(p); }
};
struct PackStreamDeleter {
  void operator()(frugal_pack_stream* s) const noexcept { frugal_pack_stream_destroy(s); }
};
struct QuantizerDeleter {
  void operator()(frugal_quantizer* q) const noexcept { frugal_quantizer_destroy(q); }
};
struct SchedulerDeleter {
  void operator()(frugal_scheduler* s) const noexcept { frugal_scheduler_destroy(s); }
};
struct RouterDeleter {
  void operator()(frugal_router* r) const noexcept { frugal_router_destroy(r); }
};
struct LossScalerDeleter {
  void operator()(frugal_loss_scaler* s) const noexcept { frugal_loss_scaler_destroy(s); }
};

using ContextPtr = std::unique_ptr<frugal_context, ContextDeleter>;
using OptionsPtr = std::unique_ptr<frugal_options, OptionsDeleter>;
using SchedulePtr = std::unique_ptr<frugal_schedule, ScheduleDeleter>;
using ErrorPtr = std::unique_ptr<frugal_error, ErrorDeleter>;
using ManagedTensorPtr = std::unique_ptr<frugal_managed_tensor, ManagedTensorDeleter>;
using PackerPtr = std::unique_ptr<frugal_packer, PackerDeleter>;
using PackPlanPtr = std::unique_ptr<frugal_pack_plan, PackPlanDeleter>;
using PackStreamPtr = std::unique_ptr<frugal_pack_stream, PackStreamDeleter>;
using QuantizerPtr = std::unique_ptr<frugal_quantizer, QuantizerDeleter>;
using LossScalerPtr = std::unique_ptr<frugal_loss_scaler, LossScalerDeleter>;
using RouterPtr = std::unique_ptr<frugal_router, RouterDeleter>;
using SchedulerPtr = std::unique_ptr<frugal_scheduler, SchedulerDeleter>;

inline ContextPtr make_context() {
  frugal_context* context = nullptr;
  check(frugal_context_create(&context));
  return ContextPtr(context);
}

inline OptionsPtr make_options() {
  frugal_options* options = nullptr;
  check(frugal_options_create(&options));
  return OptionsPtr(options);
}

inline SchedulePtr make_schedule(frugal_context* context, const char* name, const frugal_options* options) {
  frugal_schedule* schedule = nullptr;
  check(frugal_schedule_create(context, name, options, &schedule));
  return SchedulePtr(schedule);
}

inline PackerPtr make_packer(frugal_context* context, const char* name, const frugal_options* options) {
  frugal_packer* packer = nullptr;
  check(frugal_packer_create(context, name, options, &packer));
  return PackerPtr(packer);
}

inline QuantizerPtr make_quantizer(frugal_context* context, const char* name, const frugal_options* options) {
  frugal_quantizer* quantizer = nullptr;
  check(frugal_quantizer_create(context, name, options, &quantizer));
  return QuantizerPtr(quantizer);
}

inline SchedulerPtr make_scheduler(frugal_context* context, const frugal_scheduler_config& config) {
  frugal_scheduler* scheduler = nullptr;
  check(frugal_scheduler_create(context, &config, &scheduler));
  return SchedulerPtr(scheduler);
}

inline RouterPtr make_router(frugal_context* context, const char* name, const frugal_options* options) {
  frugal_router* router = nullptr;
  check(frugal_router_create(context, name, options, &router));
  return RouterPtr(router);
}

inline LossScalerPtr make_loss_scaler(const frugal_options* options) {
  frugal_loss_scaler* scaler = nullptr;
  check(frugal_loss_scaler_create(options, &scaler));
  return LossScalerPtr(scaler);
}

}  // namespace frugal::host
