// The C error API and the exception-to-error conversion.
#include "error.hpp"

#include <new>

#include "frugal/error.h"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal {
namespace {

frugal_error* out_of_memory_error() noexcept {
  // Preallocated so that reporting an allocation failure cannot itself fail.
  static frugal_error error{FRUGAL_ERR_OUT_OF_MEMORY, "out of memory", true};
  return &error;
}

bool is_known_code(int32_t code) noexcept { return code > FRUGAL_OK && code <= FRUGAL_ERR_INTERNAL; }

}  // namespace

frugal_error* make_error(int32_t code, std::string_view message) noexcept {
  try {
    return new frugal_error{is_known_code(code) ? code : FRUGAL_ERR_INTERNAL, std::string(message)};
  } catch (...) {
    return out_of_memory_error();
  }
}

frugal_error* current_exception_to_error(const char* where) noexcept {
  try {
    throw;
  } catch (const Error& e) {
    return make_error(e.code(), e.what());
  } catch (const sdk::PluginError& e) {
    // The SDK helpers the core shares with the plugins (the state codec,
    // state_frame.hpp) throw their own error type, with a frugal code.
    return make_error(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return out_of_memory_error();
  } catch (const std::exception& e) {
    try {
      return make_error(FRUGAL_ERR_INTERNAL, fmt::format("{}: unexpected exception: {}", where, e.what()));
    } catch (...) {
      return out_of_memory_error();
    }
  } catch (...) {
    try {
      return make_error(FRUGAL_ERR_INTERNAL, fmt::format("{}: unexpected non-standard exception", where));
    } catch (...) {
      return out_of_memory_error();
    }
  }
}

void rethrow_if_error(frugal_error* error, std::string_view prefix) {
  if (error == nullptr) return;
  Error converted(error->code, fmt::format("{}{}", prefix, error->message));
  frugal_error_destroy(error);
  throw converted;
}

}  // namespace frugal

extern "C" {

FRUGAL_API frugal_error* frugal_error_create(int32_t code, const char* message) {
  return frugal::make_error(code, message != nullptr ? message : "");
}

FRUGAL_API int32_t frugal_error_code(const frugal_error* error) { return error != nullptr ? error->code : FRUGAL_OK; }

FRUGAL_API const char* frugal_error_message(const frugal_error* error) {
  return error != nullptr ? error->message.c_str() : "";
}

FRUGAL_API const char* frugal_error_code_name(int32_t code) {
  switch (code) {
    case FRUGAL_OK: return "OK";
    case FRUGAL_ERR_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case FRUGAL_ERR_NOT_FOUND: return "NOT_FOUND";
    case FRUGAL_ERR_ALREADY_EXISTS: return "ALREADY_EXISTS";
    case FRUGAL_ERR_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case FRUGAL_ERR_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case FRUGAL_ERR_UNSUPPORTED: return "UNSUPPORTED";
    case FRUGAL_ERR_ABI_MISMATCH: return "ABI_MISMATCH";
    case FRUGAL_ERR_PLUGIN_INVALID: return "PLUGIN_INVALID";
    case FRUGAL_ERR_IO: return "IO";
    case FRUGAL_ERR_DATA_CORRUPTED: return "DATA_CORRUPTED";
    case FRUGAL_ERR_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
    case FRUGAL_ERR_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case FRUGAL_ERR_DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case FRUGAL_ERR_CANCELLED: return "CANCELLED";
    case FRUGAL_ERR_DEVICE: return "DEVICE";
    case FRUGAL_ERR_INTERNAL: return "INTERNAL";
    default: return "UNKNOWN";
  }
}

FRUGAL_API void frugal_error_destroy(frugal_error* error) {
  if (error != nullptr && !error->is_static) delete error;
}

}  // extern "C"
