// frugal/sdk/quantizer_adapter.hpp — declare a quantizer strategy as a
// plain C++ class. The class needs:
//   explicit Impl(const frugal::sdk::Options& options);      // validate, throw PluginError
//   frugal_quant_layout layout() const;                       // every field but struct_size
//   void quantize(const frugal_quantize_call& args);
//   void dequantize(const frugal_dequantize_call& args);
//   std::vector<std::byte> export_state() const;              // empty: no state
//   void import_state(std::span<const std::byte> blob);       // leave the state as it was on error
// and may have
//   void gemm(const frugal_quant_gemm_call& args);            // absent: the gemm slot is NULL
// quantizer_strategy<Impl>(name, summary, flags) yields its descriptor.
//
// Argument structs arrive as the core built them: the adapter copies each up
// to its struct_size into a zeroed struct of this header's size, so Impl
// reads every field it knows (fields a smaller caller lacks read as 0/NULL).
// Every slot runs under guard(): whatever Impl throws becomes a frugal
// error. Impl serialises its own state: the slots are called concurrently
// when the strategy declares FRUGAL_STRATEGY_THREAD_SAFE.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "frugal/quantizer_vtable.h"
#include "frugal/sdk/instance_slots.hpp"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::sdk {

template <typename Impl>
struct QuantizerAdapter : InstanceSlots<Impl> {
  using Base = InstanceSlots<Impl>;

  static constexpr bool kHasGemm = requires(Impl & impl, const frugal_quant_gemm_call& args) { impl.gemm(args); };

  static frugal_error* quantize(void* instance, const frugal_quantize_call* args) {
    return Base::call(instance, [&](Impl& impl) {
      impl.quantize(read_sized_args(args, offsetof(frugal_quantize_call, output) + sizeof(void*), "quantize: args"));
    });
  }

  static frugal_error* dequantize(void* instance, const frugal_dequantize_call* args) {
    return Base::call(instance, [&](Impl& impl) {
      impl.dequantize(
          read_sized_args(args, offsetof(frugal_dequantize_call, output) + sizeof(void*), "dequantize: args"));
    });
  }

  static frugal_error* gemm(void* instance, const frugal_quant_gemm_call* args) {
    return Base::call(instance, [&](Impl& impl) {
      if constexpr (kHasGemm) {
        frugal_quant_gemm_call a =
            read_sized_args(args, offsetof(frugal_quant_gemm_call, d) + sizeof(void*), "gemm: args");
        // alpha defaults to 1, not 0, for a caller whose struct ends before it.
        if (args->struct_size < offsetof(frugal_quant_gemm_call, alpha) + sizeof(float)) a.alpha = 1.0f;
        impl.gemm(a);
      } else {
        (void)impl;
      }
    });
  }

  static constexpr frugal_quantizer_vtable vtable{sizeof(frugal_quantizer_vtable),
                                                  &Base::create,
                                                  &Base::destroy,
                                                  &Base::template layout<frugal_quant_layout>,
                                                  &quantize,
                                                  &dequantize,
                                                  &Base::export_state,
                                                  &Base::import_state,
                                                  kHasGemm ? &gemm : nullptr};
};

// ext: the descriptor's extension chain, e.g. options_ext<kOptions>() (option_decl.hpp).
template <typename Impl>
constexpr frugal_strategy_desc quantizer_strategy(const char* name, const char* summary, uint32_t flags,
                                                  const frugal_ext_header* ext = nullptr) {
  return frugal_strategy_desc{
      sizeof(frugal_strategy_desc), FRUGAL_KIND_QUANTIZER, flags, name, summary, &QuantizerAdapter<Impl>::vtable, ext};
}

}  // namespace frugal::sdk
