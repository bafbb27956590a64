#include "plugin_dirs.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <string_view>
#include <system_error>

#include "error.hpp"
#include "frugal/context.h"

namespace frugal {
namespace {

const char* file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "a special file";
}

// A ':'-separated list of directories; empty entries are ignored.
std::vector<std::filesystem::path> split_search_path(std::string_view list) {
  std::vector<std::filesystem::path> dirs;
  while (!list.empty()) {
    const size_t colon = list.find(':');
    if (const std::string_view entry = list.substr(0, colon); !entry.empty()) dirs.emplace_back(entry);
    if (colon == std::string_view::npos) break;
    list.remove_prefix(colon + 1);
  }
  return dirs;
}

}  // namespace

std::filesystem::path builtin_plugin_dir() {
  Dl_info info{};
  // Any function of libfrugal names the library file that contains it.
  if (dladdr(reinterpret_cast<const void*>(&frugal_abi_version), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  const auto library = std::filesystem::canonical(info.dli_fname, ec);
  if (ec) return {};
  return library.parent_path() / "frugal" / ("v" + std::to_string(FRUGAL_ABI_VERSION_MAJOR)) / "plugins";
}

std::vector<std::filesystem::path> system_plugin_dirs() {
  // Set, even to "", it replaces the list below: tests point it at scratch
  // directories (the real ones need root to populate).
  if (const char* override_dirs = std::getenv("FRUGAL_SYSTEM_PLUGIN_DIRS"); override_dirs != nullptr)
    return split_search_path(override_dirs);
  const std::string tail = "frugal/v" + std::to_string(FRUGAL_ABI_VERSION_MAJOR) + "/plugins";
  std::vector<std::filesystem::path> dirs;
  // /usr/local before the distribution's, as for executables: what the
  // administrator installed (cmake --install's default prefix) comes first.
  for (const std::string prefix : {"/usr/local", "/usr"}) {
#ifdef FRUGAL_MULTIARCH
    dirs.push_back(prefix + "/lib/" FRUGAL_MULTIARCH "/" + tail);
#endif
    if constexpr (sizeof(void*) == 8) dirs.push_back(prefix + "/lib64/" + tail);
    dirs.push_back(prefix + "/lib/" + tail);
  }
  return dirs;
}

std::vector<PluginDir> plugin_search_dirs(uint32_t flags, const std::vector<std::string>& host_dirs) {
  std::vector<PluginDir> dirs;
  if ((flags & FRUGAL_DISCOVER_NO_ENV) == 0) {
    if (const char* env = std::getenv("FRUGAL_PLUGIN_PATH"); env != nullptr)
      for (auto& dir : split_search_path(env)) dirs.push_back({std::move(dir), "FRUGAL_PLUGIN_PATH", true});
  }
  if ((flags & FRUGAL_DISCOVER_NO_BUILTIN) == 0) {
    if (auto builtin = builtin_plugin_dir(); !builtin.empty()) dirs.push_back({builtin, "built-in", false});
  }
  for (const auto& dir : host_dirs) dirs.push_back({std::filesystem::path(dir), "host", true});
  if ((flags & FRUGAL_DISCOVER_NO_BUILTIN) == 0) {
    for (auto& dir : system_plugin_dirs()) dirs.push_back({std::move(dir), "system", false});
  }

  // Each directory once, at its first place: the built-in directory of a
  // packaged libfrugal is also a system directory, and a directory listed
  // twice would record its bad files twice.
  std::set<std::filesystem::path> seen;
  std::vector<PluginDir> unique;
  for (auto& dir : dirs) {
    std::error_code ec;
    auto key = std::filesystem::canonical(dir.path, ec);
    if (ec) key = std::filesystem::absolute(dir.path, ec).lexically_normal();
    if (seen.insert(key).second) unique.push_back(std::move(dir));
  }
  return unique;
}

std::vector<std::filesystem::path> plugin_files_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".so") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void check_plugin_file(const std::filesystem::path& path) {
  struct stat link_status {
  }, status{};
  if (::lstat(path.c_str(), &link_status) != 0)
    fail(FRUGAL_ERR_NOT_FOUND, "plugin file '{}' cannot be opened: {}", path.string(), std::strerror(errno));
  if (::stat(path.c_str(), &status) != 0) {
    const int error = errno;
    std::error_code ec;
    const auto target =
        S_ISLNK(link_status.st_mode) ? std::filesystem::read_symlink(path, ec) : std::filesystem::path();
    if (S_ISLNK(link_status.st_mode) && !ec)
      fail(FRUGAL_ERR_NOT_FOUND, "plugin file '{}' is a dangling symbolic link to '{}': {}", path.string(),
           target.string(), std::strerror(error));
    fail(FRUGAL_ERR_NOT_FOUND, "plugin file '{}' cannot be opened: {}", path.string(), std::strerror(error));
  }
  if (!S_ISREG(status.st_mode))
    fail(FRUGAL_ERR_PLUGIN_INVALID, "plugin file '{}' is {}, not a regular file{}", path.string(),
         file_type_name(status.st_mode), S_ISLNK(link_status.st_mode) ? " (through a symbolic link)" : "");
}

}  // namespace frugal
