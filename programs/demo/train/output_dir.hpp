// The --out directory: created when missing, cleared when it holds a
// previous demo output (recognised by a marker file the demo leaves), and
// refused when it holds anything else, so the demo never deletes files it
// did not write.
#pragma once

#include <filesystem>
#include <string>

namespace frugal_demo {

inline constexpr const char* kOutputMarker = ".frugal-demo-output";

// Makes `dir` an empty demo output directory with its marker. Returns what
// was done, in words ("created", "cleared the previous demo output", ...).
// Throws std::runtime_error naming the directory and the reason.
std::string prepare_output_dir(const std::filesystem::path& dir);

}  // namespace frugal_demo
