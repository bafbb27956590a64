// The frugal-demo command line as one spec (support/args): what its parser
// reads, what its --help prints, and what `frugal --help` lists for
// `frugal demo`. A library of its own so that the CLI can list the demo
// from the same words in a build without the demo.
#pragma once

#include <string>

#include "command_spec.hpp"

namespace frugal_demo {

// The options, values, descriptions and summary; static storage.
const frugal::args::Spec& demo_spec();

// The --help text, made from demo_spec().
std::string demo_usage();

// The one line a bad command line prints on stderr (args::usage_error_text).
std::string demo_usage_error(const std::string& message);

}  // namespace frugal_demo
