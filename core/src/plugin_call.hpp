// Calling a plugin's vtable slot (or a host's callback) safely: a returned
// error becomes a frugal::Error prefixed with the label, and an exception
// wrongly let escape is caught here instead of unwinding further.
#pragma once

#include <exception>
#include <string>

#include "error.hpp"

namespace frugal {

// `who` names the other side in the exception messages: "plugin", or
// "host callback" for the functions a host registers.
template <typename Call>
void call_plugin(const std::string& label, Call&& call, const char* who = "plugin") {
  frugal_error* error = nullptr;
  try {
    error = call();
  } catch (const std::exception& e) {
    fail(FRUGAL_ERR_INTERNAL, "{}: {} threw an exception across the ABI: {}", label, who, e.what());
  } catch (...) {
    fail(FRUGAL_ERR_INTERNAL, "{}: {} threw a non-standard exception across the ABI", label, who);
  }
  if (error != nullptr) rethrow_if_error(error, label + ": ");  // no string built on the hot path
}

}  // namespace frugal
