// Calling a plugin's vtable slot safely: a returned error becomes a
// frugal::Error prefixed with the strategy's label, and an exception the
// plugin wrongly lets escape is caught here instead of unwinding the host.
#pragma once

#include <exception>
#include <string>

#include "error.hpp"

namespace frugal {

template <typename Call>
void call_plugin(const std::string& label, Call&& call) {
  frugal_error* error = nullptr;
  try {
    error = call();
  } catch (const std::exception& e) {
    fail(FRUGAL_ERR_INTERNAL, "{}: plugin threw an exception across the ABI: {}", label, e.what());
  } catch (...) {
    fail(FRUGAL_ERR_INTERNAL, "{}: plugin threw a non-standard exception across the ABI", label);
  }
  if (error != nullptr) rethrow_if_error(error, label + ": ");  // no string built on the hot path
}

}  // namespace frugal
