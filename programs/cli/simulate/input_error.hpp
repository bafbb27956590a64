// The simulator's one error type for bad input: a job file, a trace, a
// loss log or a value in them. The message already names the file and the
// place (line:column, line, or the value's path in a JSON document) and
// says what is wrong, so the command prints it as it is and exits with
// code 1.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace frugal::simulate {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// InputError "source: what", for a value of a file that `what` names by
// its path in the file ("prices.spot must be in [0, 1e9], got -1").
[[noreturn]] inline void fail_in(std::string_view source, std::string_view what) {
  throw InputError(std::string(source) + ": " + std::string(what));
}

}  // namespace frugal::simulate
