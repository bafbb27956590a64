// frugal_quantizer_*: quantizer objects. Validation lives in
// quantizer_core.cpp and quant_tensors.cpp.
#include <fmt/format.h>

#include "context.hpp"
#include "error.hpp"
#include "frugal/quantizer.h"
#include "quant/quant_tensors.hpp"
#include "quant/quantizer_core.hpp"
#include "sized_structs.hpp"

extern "C" {

FRUGAL_API frugal_error* frugal_quantizer_create(frugal_context* context, const char* name,
                                                 const frugal_options* options, frugal_quantizer** out) {
  return frugal::guard("frugal_quantizer_create", [&] {
    frugal::require_non_null(out, "frugal_quantizer_create", "out");
    auto resolved = frugal::resolve_strategy(context, FRUGAL_KIND_QUANTIZER, name);
    auto core = std::make_unique<frugal::quant::QuantizerCore>(resolved.plugin, *resolved.record, name);
    core->create_instance(options);
    *out = new frugal_quantizer{std::move(core)};
  });
}

FRUGAL_API frugal_error* frugal_quantizer_layout(const frugal_quantizer* quantizer, frugal_quant_layout* out) {
  constexpr const char* kFn = "frugal_quantizer_layout";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(quantizer, kFn, "quantizer");
    frugal::require_non_null(out, kFn, "out");
    frugal::write_sized(out, quantizer->core->layout(), kFn);
  });
}

FRUGAL_API frugal_error* frugal_quantizer_scale_shape(const frugal_quantizer* quantizer, int64_t rows, int64_t cols,
                                                      int64_t* shape) {
  constexpr const char* kFn = "frugal_quantizer_scale_shape";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(quantizer, kFn, "quantizer");
    frugal::require_non_null(shape, kFn, "shape");
    if (rows < 1 || cols < 1)
      frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: rows {} and cols {} must both be >= 1", kFn, rows, cols);
    const auto grid = frugal::quant::scale_grid(quantizer->core->layout(), rows, cols);
    shape[0] = grid.rows;
    shape[1] = grid.cols;
  });
}

FRUGAL_API frugal_error* frugal_quantizer_quantize(frugal_quantizer* quantizer, const frugal_quantize_args* args) {
  constexpr const char* kFn = "frugal_quantizer_quantize";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(quantizer, kFn, "quantizer");
    frugal::require_non_null(args, kFn, "args");
    quantizer->core->quantize(*args);
  });
}

FRUGAL_API frugal_error* frugal_quantizer_dequantize(frugal_quantizer* quantizer, const frugal_dequantize_args* args) {
  constexpr const char* kFn = "frugal_quantizer_dequantize";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(quantizer, kFn, "quantizer");
    frugal::require_non_null(args, kFn, "args");
    quantizer->core->dequantize(*args);
  });
}

FRUGAL_API frugal_error* frugal_quantizer_gemm(frugal_quantizer* quantizer, const frugal_quant_gemm_args* args) {
  constexpr const char* kFn = "frugal_quantizer_gemm";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(quantizer, kFn, "quantizer");
    frugal::require_non_null(args, kFn, "args");
    quantizer->core->gemm(*args);
  });
}

FRUGAL_API frugal_error* frugal_quantizer_export_state(frugal_quantizer* quantizer, void* buffer, size_t capacity,
                                                       size_t* size) {
  constexpr const char* kFn = "frugal_quantizer_export_state";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(quantizer, kFn, "quantizer");
    frugal::require_non_null(size, kFn, "size");
    if (buffer == nullptr && capacity != 0)
      frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: buffer is NULL but capacity is {}", kFn, capacity);
    quantizer->core->export_state(buffer, capacity, size);
  });
}

FRUGAL_API frugal_error* frugal_quantizer_import_state(frugal_quantizer* quantizer, const void* data, size_t size) {
  constexpr const char* kFn = "frugal_quantizer_import_state";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(quantizer, kFn, "quantizer");
    if (size > 0) frugal::require_non_null(data, kFn, "data");
    quantizer->core->import_state(data, size);
  });
}

FRUGAL_API void frugal_quantizer_destroy(frugal_quantizer* quantizer) { delete quantizer; }

}  // extern "C"
