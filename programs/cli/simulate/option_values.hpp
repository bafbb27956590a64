// Building and looking up OptionValue lists (plan and policy options).
#pragma once

#include <string>
#include <vector>

#include "job.hpp"

namespace frugal::simulate {

OptionValue int_option(std::string name, int64_t value);
OptionValue double_option(std::string name, double value);
OptionValue bool_option(std::string name, bool value);
OptionValue string_option(std::string name, std::string value);

// The option named `name`, or nullptr.
const OptionValue* find_option(const std::vector<OptionValue>& options, const std::string& name);
// Appends `value` unless an option of that name is already set.
void set_default(std::vector<OptionValue>& options, OptionValue value);
// true when the option is a bool set to true (or an int set to nonzero).
bool option_is_true(const std::vector<OptionValue>& options, const std::string& name);

}  // namespace frugal::simulate
