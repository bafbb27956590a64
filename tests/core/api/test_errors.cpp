// Error objects: codes, messages, names, NULL handling.
#include <catch2/catch.hpp>

#include <string>

#include "frugal/frugal.h"

TEST_CASE("an error carries its code and a copy of its message") {
  std::string message = "disk full while writing shard 3";
  frugal_error* error = frugal_error_create(FRUGAL_ERR_IO, message.c_str());
  message.assign("overwritten");
  CHECK(frugal_error_code(error) == FRUGAL_ERR_IO);
  CHECK(std::string(frugal_error_message(error)) == "disk full while writing shard 3");
  frugal_error_destroy(error);
}

TEST_CASE("NULL means success everywhere") {
  CHECK(frugal_error_code(nullptr) == FRUGAL_OK);
  CHECK(std::string(frugal_error_message(nullptr)).empty());
  frugal_error_destroy(nullptr);
  frugal_error* error = frugal_error_create(FRUGAL_ERR_INTERNAL, nullptr);
  CHECK(std::string(frugal_error_message(error)).empty());
  frugal_error_destroy(error);
}

TEST_CASE("codes outside the enum are stored as INTERNAL, never as success") {
  for (int32_t code : {0, -1, 17, 1000}) {
    frugal_error* error = frugal_error_create(code, "x");
    CHECK(frugal_error_code(error) == FRUGAL_ERR_INTERNAL);
    frugal_error_destroy(error);
  }
}

TEST_CASE("every code has a stable name") {
  CHECK(std::string(frugal_error_code_name(FRUGAL_ERR_INVALID_ARGUMENT)) == "INVALID_ARGUMENT");
  CHECK(std::string(frugal_error_code_name(FRUGAL_ERR_ABI_MISMATCH)) == "ABI_MISMATCH");
  CHECK(std::string(frugal_error_code_name(FRUGAL_ERR_INTERNAL)) == "INTERNAL");
  CHECK(std::string(frugal_error_code_name(999)) == "UNKNOWN");
  for (int32_t code = FRUGAL_ERR_INVALID_ARGUMENT; code <= FRUGAL_ERR_INTERNAL; ++code)
    CHECK(std::string(frugal_error_code_name(code)) != "UNKNOWN");
}
