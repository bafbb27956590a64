// What the schedule_lr tests share: a context with the plugin loaded and
// options from text pairs.
#pragma once

#include <initializer_list>
#include <utility>

#include "test_helpers.hpp"

namespace frugal::test {

inline host::ContextPtr lr_context() {
  auto context = host::make_context();
  host::check(frugal_context_load_plugin(context.get(), builtin_path("schedule_lr").c_str()));
  return context;
}

inline host::OptionsPtr options_of(std::initializer_list<std::pair<const char*, const char*>> values) {
  auto options = host::make_options();
  for (const auto& [name, text] : values) host::check(frugal_options_set_parsed(options.get(), name, text));
  return options;
}

}  // namespace frugal::test
