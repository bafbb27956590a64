// The error a recipe state blob that cannot be imported raises.
#pragma once

#include <stdexcept>
#include <string>

namespace frugal::quant::recipes {

// import_state() rejects a blob with this; what() names the field that is
// wrong and, where it helps, the value found and the value expected. The
// state it would have replaced is left untouched.
class StateError : public std::runtime_error {
 public:
  explicit StateError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace frugal::quant::recipes
