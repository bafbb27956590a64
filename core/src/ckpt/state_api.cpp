// frugal_ckpt_register_state and the registrations of the core's own
// stateful objects: each is the generic registration with the object's
// export_state / import_state behind a trampoline.
#include "ckpt/c_handle.hpp"
#include "sized_structs.hpp"

namespace {

using frugal::guard;
using frugal::require_non_null;

constexpr size_t kStateFnsMinSize = FRUGAL_CKPT_STATE_FNS_MIN_SIZE;

void register_state(frugal_ckpt_engine* engine, const char* name, const frugal_ckpt_state_fns& fns, uint32_t kinds,
                    const char* function) {
  require_non_null(name, function, "name");
  frugal::ckpt::engine_of(engine, function).register_state(name, fns, kinds);
}

// frugal_ckpt_register_state for an object of type T, with its kind's
// export and import as the functions and the object as user_data.
template <typename T, auto Export, auto Import>
frugal_error* register_object(frugal_ckpt_engine* engine, const char* name, T* object, uint32_t kinds,
                              const char* function, const char* argument) {
  return guard(function, [&] {
    require_non_null(object, function, argument);
    frugal_ckpt_state_fns fns{};
    fns.struct_size = sizeof(fns);
    fns.user_data = object;
    fns.export_state = [](void* user_data, void* buffer, size_t capacity, size_t* size) {
      return Export(static_cast<T*>(user_data), buffer, capacity, size);
    };
    fns.import_state = [](void* user_data, const void* data, size_t size) {
      return Import(static_cast<T*>(user_data), data, size);
    };
    register_state(engine, name, fns, kinds, function);
  });
}

}  // namespace

extern "C" {

FRUGAL_API frugal_error* frugal_ckpt_register_state(frugal_ckpt_engine* engine, const char* name,
                                                    const frugal_ckpt_state_fns* fns, uint32_t kinds) {
  constexpr const char* kFn = "frugal_ckpt_register_state";
  return guard(kFn, [&] {
    require_non_null(fns, kFn, "fns");
    if (fns->struct_size < kStateFnsMinSize)
      frugal::fail(FRUGAL_ERR_ABI_MISMATCH, "{}: fns->struct_size is {}; at least {} are required", kFn,
                   fns->struct_size, kStateFnsMinSize);
    register_state(engine, name, frugal::read_sized(fns), kinds, kFn);
  });
}

FRUGAL_API frugal_error* frugal_ckpt_register_router(frugal_ckpt_engine* engine, const char* name,
                                                     frugal_router* router, uint32_t kinds) {
  return register_object<frugal_router, frugal_router_export_state, frugal_router_import_state>(
      engine, name, router, kinds, "frugal_ckpt_register_router", "router");
}

FRUGAL_API frugal_error* frugal_ckpt_register_quantizer(frugal_ckpt_engine* engine, const char* name,
                                                        frugal_quantizer* quantizer, uint32_t kinds) {
  return register_object<frugal_quantizer, frugal_quantizer_export_state, frugal_quantizer_import_state>(
      engine, name, quantizer, kinds, "frugal_ckpt_register_quantizer", "quantizer");
}

FRUGAL_API frugal_error* frugal_ckpt_register_scheduler(frugal_ckpt_engine* engine, const char* name,
                                                        frugal_scheduler* scheduler, uint32_t kinds) {
  return register_object<frugal_scheduler, frugal_scheduler_export_state, frugal_scheduler_import_state>(
      engine, name, scheduler, kinds, "frugal_ckpt_register_scheduler", "scheduler");
}

FRUGAL_API frugal_error* frugal_ckpt_register_loss_scaler(frugal_ckpt_engine* engine, const char* name,
                                                          frugal_loss_scaler* scaler, uint32_t kinds) {
  return register_object<frugal_loss_scaler, frugal_loss_scaler_export_state, frugal_loss_scaler_import_state>(
      engine, name, scaler, kinds, "frugal_ckpt_register_loss_scaler", "scaler");
}

}  // extern "C"
