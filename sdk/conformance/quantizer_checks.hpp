// quantizer_checks.hpp — the quantizer rules that call quantize and
// dequantize on real CPU tensors (check_quantizer.cpp), used by the
// quantizer checks of check_stateful.cpp.
#pragma once
#include <vector>

#include "frugal/quantizer.h"
#include "strategy_checks.hpp"

namespace frugal::conformance {

// The bytes (codes and every scale tensor) of quantizing the kit's standard
// input twice on `instance`: the second call uses what the first recorded,
// so state that did not restore exactly shows.
std::vector<unsigned char> quantize_result(const frugal_quantizer_vtable* vt, void* instance);
// The same two calls through libfrugal (frugal_quantizer_quantize); empty
// with `error` set when a call fails.
std::vector<unsigned char> core_quantize_result(frugal_quantizer* q, std::string& error);
// round-trip, null-arguments (tensors), struct-size (args), determinism,
// thread-safety and core-parity on `a`, an instance fresh from create.
void check_quantizer_tensors(Checks& c, void* a);

}  // namespace frugal::conformance
