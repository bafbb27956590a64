#include "option_values.hpp"

namespace frugal::simulate {

// Aggregates in field order: name, type, int, double, bool, string.
OptionValue int_option(std::string name, int64_t value) {
  return {std::move(name), OptionValue::Type::kInt, value, 0.0, false, {}};
}

OptionValue double_option(std::string name, double value) {
  return {std::move(name), OptionValue::Type::kDouble, 0, value, false, {}};
}

OptionValue bool_option(std::string name, bool value) {
  return {std::move(name), OptionValue::Type::kBool, 0, 0.0, value, {}};
}

OptionValue string_option(std::string name, std::string value) {
  return {std::move(name), OptionValue::Type::kString, 0, 0.0, false, std::move(value)};
}

const OptionValue* find_option(const std::vector<OptionValue>& options, const std::string& name) {
  for (const auto& o : options)
    if (o.name == name) return &o;
  return nullptr;
}

void set_default(std::vector<OptionValue>& options, OptionValue value) {
  if (find_option(options, value.name) == nullptr) options.push_back(std::move(value));
}

bool option_is_true(const std::vector<OptionValue>& options, const std::string& name) {
  const OptionValue* o = find_option(options, name);
  if (o == nullptr) return false;
  return o->type == OptionValue::Type::kBool ? o->bool_value : o->type == OptionValue::Type::kInt && o->int_value != 0;
}

}  // namespace frugal::simulate
