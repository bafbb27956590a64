#include "kit_options.hpp"

#include <stdlib.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace frugal::conformance {

namespace {

std::string libfrugal_message(frugal_error* e) {
  const std::string message = frugal_error_message(e);
  frugal_error_destroy(e);
  return message;
}

std::string with_tmpdir(std::string value, const std::string& tmpdir) {
  for (auto at = value.find("{tmpdir}"); at != std::string::npos; at = value.find("{tmpdir}", at + tmpdir.size()))
    value.replace(at, 8, tmpdir);
  return value;
}

// A new empty directory under `tmpdir`, named after the option; the whole
// tmpdir is removed once the strategy is checked.
std::string fresh_directory(const std::string& tmpdir, const std::string& option) {
  std::string pattern = tmpdir + "/" + option + "-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot make a directory for option '" + option + "' under " + tmpdir);
  return pattern;
}

}  // namespace

bool DeclaredOption::buildable() const {
  return type != FRUGAL_OPTION_STRING || choices.has_value() || has(FRUGAL_OPTION_DECL_DIRECTORY);
}

std::vector<DeclaredOption> read_declared_options(const frugal_context* context, size_t strategy_index, size_t count) {
  std::vector<DeclaredOption> out;
  for (size_t j = 0; j < count; ++j) {
    frugal_option_info info{};
    info.struct_size = sizeof info;
    if (frugal_error* e = frugal_context_strategy_option(context, 0, strategy_index, j, &info)) {
      frugal_error_destroy(e);
      continue;
    }
    DeclaredOption o;
    o.name = info.name;
    o.type = info.type;
    o.flags = info.flags;
    if (info.default_value != nullptr) o.default_value = info.default_value;
    o.min = info.min;
    o.max = info.max;
    if (info.choices != nullptr) o.choices = info.choices;
    o.doc = info.doc;
    out.push_back(std::move(o));
  }
  return out;
}

Value Value::of_int(int64_t v) {
  Value out;
  out.form_ = Form::int_value;
  out.int_ = v;
  return out;
}

Value Value::of_double(double v) {
  Value out;
  out.form_ = Form::double_value;
  out.double_ = v;
  return out;
}

Value Value::of_bool(bool v) {
  Value out;
  out.form_ = Form::bool_value;
  out.int_ = v ? 1 : 0;
  return out;
}

Value Value::of_string(std::string v) {
  Value out;
  out.form_ = Form::string_value;
  out.text_ = std::move(v);
  return out;
}

Value Value::parsed(std::string text) {
  Value out;
  out.form_ = Form::parsed_text;
  out.text_ = std::move(text);
  return out;
}

frugal_error* Value::set(frugal_options* options, const std::string& name) const {
  switch (form_) {
    case Form::int_value: return frugal_options_set_int(options, name.c_str(), int_);
    case Form::double_value: return frugal_options_set_double(options, name.c_str(), double_);
    case Form::bool_value: return frugal_options_set_bool(options, name.c_str(), static_cast<int32_t>(int_));
    case Form::string_value: return frugal_options_set_string(options, name.c_str(), text_.c_str());
    case Form::parsed_text: return frugal_options_set_parsed(options, name.c_str(), text_.c_str());
  }
  return nullptr;
}

std::string Value::shown() const {
  switch (form_) {
    case Form::int_value: return std::to_string(int_);
    case Form::double_value: return number_text(double_);
    case Form::bool_value: return int_ != 0 ? "true" : "false";
    case Form::string_value: return "'" + text_ + "'";
    case Form::parsed_text: return text_;
  }
  return text_;
}

std::string number_text(double v) {
  std::array<char, 32> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return std::string(buf.data(), r.ptr);
}

std::optional<Value> built_value(const DeclaredOption& o, const std::string& tmpdir) {
  switch (o.type) {
    case FRUGAL_OPTION_INT: {
      // 8, not the minimum: a count at its minimum (one expert, one node)
      // often breaks a constraint with another option's default (k <= experts).
      int64_t v = 8;
      if (o.has(FRUGAL_OPTION_DECL_HAS_MIN)) v = std::max(v, int_bound(o.min));
      if (o.has(FRUGAL_OPTION_DECL_HAS_MAX)) v = std::min(v, int_bound(o.max));
      return Value::of_int(v);
    }
    case FRUGAL_OPTION_DOUBLE: {
      double v = 1.0;
      if (o.has(FRUGAL_OPTION_DECL_HAS_MIN)) v = std::fmax(v, o.min);
      if (o.has(FRUGAL_OPTION_DECL_HAS_MAX)) v = std::fmin(v, o.max);
      return Value::of_double(v);
    }
    case FRUGAL_OPTION_BOOL: return Value::of_bool(false);
    default: break;
  }
  if (o.choices) return Value::of_string(std::string(split_choices(*o.choices).front()));
  if (o.has(FRUGAL_OPTION_DECL_DIRECTORY)) return Value::of_string(fresh_directory(tmpdir, o.name));
  return std::nullopt;
}

bool given_by_user(const std::vector<OptionArg>& options, const std::string& strategy, const std::string& key) {
  for (const OptionArg& o : options)
    if ((o.strategy == "*" || o.strategy == strategy) && o.key == key) return true;
  return false;
}

frugal_options* make_options(const std::vector<OptionArg>& options, const std::string& strategy,
                             const std::string& tmpdir, const std::vector<DeclaredOption>& declared,
                             const std::string& omit) {
  frugal_options* out = nullptr;
  if (frugal_error* e = frugal_options_create(&out)) throw std::runtime_error(libfrugal_message(e));
  try {
    for (const DeclaredOption& o : declared) {
      if (!o.required() || o.name == omit || given_by_user(options, strategy, o.name)) continue;
      if (const auto value = built_value(o, tmpdir))
        if (frugal_error* e = value->set(out, o.name))
          throw std::runtime_error("the value " + value->shown() + " built for option '" + o.name +
                                   "': " + libfrugal_message(e));
    }
    for (const OptionArg& o : options) {
      if ((o.strategy != "*" && o.strategy != strategy) || o.key == omit) continue;
      if (frugal_error* e = frugal_options_set_parsed(out, o.key.c_str(), with_tmpdir(o.value, tmpdir).c_str()))
        throw std::runtime_error("--option " + o.strategy + "." + o.key + ": " + libfrugal_message(e));
    }
  } catch (...) {
    frugal_options_destroy(out);
    throw;
  }
  return out;
}

}  // namespace frugal::conformance
