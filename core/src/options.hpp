// The typed named values behind frugal_options. Internal to libfrugal.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "frugal/sdk/option_decl.hpp"
#include "frugal/types.h"

struct frugal_options {
  struct Entry {
    std::string name;
    int32_t type = FRUGAL_OPTION_INT;
    int64_t int_value = 0;
    double double_value = 0.0;
    std::string string_value;  // also holds nothing for non-string types
    // FRUGAL_OPTION_COMM: a handle of its own sharing the communicator, so
    // the pointer a plugin reads stays put however the host's handle goes.
    std::shared_ptr<frugal_comm> comm_value;
  };
  // Insertion order; names unique. A deque, so strings handed out by the
  // getters do not move when other names are added.
  std::deque<Entry> entries;
};

namespace frugal {
// "int", "double", "bool", "string" or "unknown": the SDK's spelling, which
// tools print too.
using sdk::option_type_name;

// The COMM values of `options` (NULL: none), for an instance to hold.
std::vector<std::shared_ptr<frugal_comm>> comm_references(const frugal_options* options);

// Implementation of frugal_host_api.options_check_known.
frugal_error* options_check_known(const frugal_options* options, const char* const* known, size_t count,
                                  const char* owner) noexcept;
}  // namespace frugal
