// Where plugins are looked for, in order, and which files there count.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace frugal {

struct PluginDir {
  std::filesystem::path path;
  const char* origin;  // "FRUGAL_PLUGIN_PATH", "built-in", "host", "system"
  bool must_exist;     // a missing built-in or system dir is normal; a missing configured one is an error
};

// FRUGAL_PLUGIN_PATH entries, then the built-in dir, then the host's dirs,
// then the system dirs, filtered by FRUGAL_DISCOVER_* flags (NO_BUILTIN
// skips the system dirs too), each directory once (by canonical path).
std::vector<PluginDir> plugin_search_dirs(uint32_t flags, const std::vector<std::string>& host_dirs);

// The system-wide plugin directories, where `cmake --install` and
// distribution packages put plugins (as GStreamer and ALSA look in theirs):
// for ABI major 1, /usr/local/lib/<multiarch>/frugal/v2/plugins,
// /usr/local/lib64/..., /usr/local/lib/..., then the same under /usr.
// FRUGAL_SYSTEM_PLUGIN_DIRS (':'-separated), when set, replaces the list.
std::vector<std::filesystem::path> system_plugin_dirs();

// <directory of libfrugal>/frugal/v<ABI major>/plugins, found through the loaded
// library's own path (same layout in the build tree and the install tree).
std::filesystem::path builtin_plugin_dir();

// Every entry named "*.so" directly in `dir`, sorted by name, whatever its
// type: one that is not a regular file (or a link to one) is a load failure
// check_plugin_file reports, not something to skip silently.
std::vector<std::filesystem::path> plugin_files_in(const std::filesystem::path& dir);

// Throws frugal::Error naming `path` unless it is a regular file or a link
// to one: NOT_FOUND for a missing file or a dangling link (naming its
// target), PLUGIN_INVALID for a directory, FIFO, socket or device. Only
// stats: a FIFO is never opened (opening it for reading would block).
void check_plugin_file(const std::filesystem::path& path);

}  // namespace frugal
