// Where plugins are looked for, in order, and which files there count.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace frugal {

struct PluginDir {
  std::filesystem::path path;
  const char* origin;     // "FRUGAL_PLUGIN_PATH", "built-in", "host"
  bool must_exist;        // a missing built-in dir is normal; a missing configured one is an error
};

// FRUGAL_PLUGIN_PATH entries, then the built-in dir, then the host's dirs,
// filtered by FRUGAL_DISCOVER_* flags.
std::vector<PluginDir> plugin_search_dirs(uint32_t flags, const std::vector<std::string>& host_dirs);

// <directory of libfrugal>/frugal/v<ABI major>/plugins, found through the loaded
// library's own path (same layout in the build tree and the install tree).
std::filesystem::path builtin_plugin_dir();

// The "*.so" regular files (or links to them) directly in `dir`, sorted by name.
std::vector<std::filesystem::path> plugin_files_in(const std::filesystem::path& dir);

}  // namespace frugal
