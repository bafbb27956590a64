#include "plugin_dirs.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>

#include "frugal/context.h"

namespace frugal {

std::filesystem::path builtin_plugin_dir() {
  Dl_info info{};
  // Any function of libfrugal names the library file that contains it.
  if (dladdr(reinterpret_cast<const void*>(&frugal_abi_version), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  const auto library = std::filesystem::canonical(info.dli_fname, ec);
  if (ec) return {};
  return library.parent_path() / "frugal" / ("v" + std::to_string(FRUGAL_ABI_VERSION_MAJOR)) / "plugins";
}

std::vector<PluginDir> plugin_search_dirs(uint32_t flags, const std::vector<std::string>& host_dirs) {
  std::vector<PluginDir> dirs;
  if ((flags & FRUGAL_DISCOVER_NO_ENV) == 0) {
    if (const char* env = std::getenv("FRUGAL_PLUGIN_PATH"); env != nullptr) {
      std::string_view rest(env);
      while (!rest.empty()) {
        const size_t colon = rest.find(':');
        const std::string_view entry = rest.substr(0, colon);
        if (!entry.empty()) dirs.push_back({std::filesystem::path(entry), "FRUGAL_PLUGIN_PATH", true});
        if (colon == std::string_view::npos) break;
        rest.remove_prefix(colon + 1);
      }
    }
  }
  if ((flags & FRUGAL_DISCOVER_NO_BUILTIN) == 0) {
    if (auto builtin = builtin_plugin_dir(); !builtin.empty()) dirs.push_back({builtin, "built-in", false});
  }
  for (const auto& dir : host_dirs) dirs.push_back({std::filesystem::path(dir), "host", true});
  return dirs;
}

std::vector<std::filesystem::path> plugin_files_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto& path = it->path();
    if (path.extension() != ".so") continue;
    std::error_code status_ec;
    if (!std::filesystem::is_regular_file(path, status_ec)) continue;  // follows symlinks
    files.push_back(path);
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace frugal
