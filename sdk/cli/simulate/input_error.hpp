// The simulator's one error type for bad input: a job file, a trace, a
// loss log or a value in them. The message already names the file and the
// place (line:column, line, or element) and says what is wrong, so the
// command prints it as it is and exits with code 1.
#pragma once

#include <stdexcept>

namespace frugal::simulate {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace frugal::simulate
