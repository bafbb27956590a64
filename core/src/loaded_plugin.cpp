// Plugin loading: dlopen through Boost.DLL (RTLD_NOW | RTLD_LOCAL), entry
// symbol lookup, version negotiation and descriptor validation. Every way a
// plugin can be wrong ends in a frugal::Error naming the file; none may
// crash the host (short of the plugin's own code faulting).
#include "loaded_plugin.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "comm/host_slots.hpp"
#include "elf_check.hpp"
#include "error.hpp"
#include "frugal/error.h"
#include "frugal/options.h"
#include "options.hpp"
#include "sized_structs.hpp"
#include "strategy_kinds.hpp"

namespace frugal {
namespace {

constexpr size_t kMaxStrategies = 4096;
constexpr size_t kMaxPluginNameLength = 64;

// Copies a descriptor string, refusing NULL (when required) and runaway lengths.
std::string copy_string(const char* value, bool required, std::string_view field, const std::string& path) {
  if (value == nullptr) {
    if (required) fail(FRUGAL_ERR_PLUGIN_INVALID, "plugin '{}': descriptor field '{}' is NULL", path, field);
    return {};
  }
  const size_t length = strnlen(value, kMaxPluginStringLength + 1);
  if (length > kMaxPluginStringLength)
    fail(FRUGAL_ERR_PLUGIN_INVALID, "plugin '{}': descriptor field '{}' is longer than {} bytes", path, field,
         kMaxPluginStringLength);
  return std::string(value, length);
}

void host_log(const frugal_host_api* host, int32_t level, const char* message) {
  if (host == nullptr || host->host_data == nullptr) return;
  static_cast<const LoadedPlugin*>(host->host_data)->log(level, message != nullptr ? message : "");
}

void* host_alloc(const frugal_host_api*, size_t size, size_t alignment) {
  if (size == 0) return nullptr;
  if (alignment == 0) alignment = 16;
  if ((alignment & (alignment - 1)) != 0) return nullptr;
  alignment = std::max(alignment, sizeof(void*));
  void* memory = nullptr;
  return posix_memalign(&memory, alignment, size) == 0 ? memory : nullptr;
}

void host_free(const frugal_host_api*, void* pointer) { std::free(pointer); }

// The dynamic loader maps a file once per process however many times it is
// opened, so a plugin's entry point and on_unload must run once per process
// too: every context shares one LoadedPlugin per file, keyed by device and
// inode so that hard links and other paths to the same file count as one.
struct FileId {
  dev_t device;
  ino_t inode;
  auto operator<=>(const FileId&) const = default;
};

// Recursive: a plugin refused inside load() is destroyed (and unloaded)
// while the lock is held.
std::recursive_mutex& loaded_files_mutex() {
  static std::recursive_mutex mutex;
  return mutex;
}

std::map<FileId, std::weak_ptr<LoadedPlugin>>& loaded_files() {
  static std::map<FileId, std::weak_ptr<LoadedPlugin>> files;
  return files;
}

}  // namespace

bool is_valid_component_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxPluginNameLength) return false;
  if (!(name[0] >= 'a' && name[0] <= 'z')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
  });
}

LoadedPlugin::LoadedPlugin(std::shared_ptr<LogSink> log) : log_(std::move(log)) {
  host_.struct_size = sizeof(frugal_host_api);
  host_.abi_major = FRUGAL_ABI_VERSION_MAJOR;
  host_.abi_minor = FRUGAL_ABI_VERSION_MINOR;
  host_.host_data = this;
  host_.log = &host_log;
  host_.alloc = &host_alloc;
  host_.free = &host_free;
  host_.error_create = &frugal_error_create;
  host_.option_get_int = &frugal_options_get_int;
  host_.option_get_double = &frugal_options_get_double;
  host_.option_get_bool = &frugal_options_get_bool;
  host_.option_get_string = &frugal_options_get_string;
  host_.options_check_known = &options_check_known;
  host_.option_type = &frugal_options_type;
  host_.error_destroy = &frugal_error_destroy;
  host_.option_get_comm = &frugal_options_get_comm;
  host_.comm_info = &comm::host_comm_info;
  host_.comm_run = &comm::host_comm_run;
}

LoadedPlugin::~LoadedPlugin() {
  // Held until the library is unmapped, so a concurrent load of the same
  // file waits instead of re-initialising a library that is going away.
  std::lock_guard lock(loaded_files_mutex());
  if (on_unload_ != nullptr) {
    try {
      on_unload_();
    } catch (...) {
      log(FRUGAL_LOG_ERROR, "on_unload threw an exception (plugins must not throw across the ABI)");
    }
  }
  if (library_.is_loaded()) library_.unload();
}

void LoadedPlugin::log(int32_t level, std::string_view message) const {
  if (!log_->enabled(level)) return;
  log_->write(level, name_.empty() ? path_ : name_, message);
}

std::shared_ptr<LoadedPlugin> LoadedPlugin::load(const std::filesystem::path& path, std::shared_ptr<LogSink> log) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0)
    fail(FRUGAL_ERR_NOT_FOUND, "plugin file '{}' cannot be opened: {}", path.string(), std::strerror(errno));
  const FileId id{status.st_dev, status.st_ino};
  std::lock_guard lock(loaded_files_mutex());
  auto& files = loaded_files();
  if (auto it = files.find(id); it != files.end()) {
    if (auto existing = it->second.lock()) return existing;
    files.erase(it);
  }
  std::shared_ptr<LoadedPlugin> plugin(new LoadedPlugin(std::move(log)));
  plugin->open_and_initialise(path);
  files[id] = plugin;
  return plugin;
}

void LoadedPlugin::open_and_initialise(const std::filesystem::path& path) {
  path_ = path.string();
  // dlopen trusts the file's headers; a truncated file would be mapped
  // past its end and fault on first touch, so it is refused here first.
  if (const std::string problem = elf_file_problem(path); !problem.empty())
    fail(FRUGAL_ERR_PLUGIN_INVALID, "cannot load '{}' as a shared library: {}", path_, problem);
  try {
    library_.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    fail(FRUGAL_ERR_PLUGIN_INVALID, "cannot load '{}' as a shared library: {}", path_, e.what());
  }

  if (!library_.has(FRUGAL_PLUGIN_ENTRY_NAME)) {
    // A plugin of another major exports another entry name; say so plainly.
    for (int major = 0; major < 100; ++major) {
      if (major == FRUGAL_ABI_VERSION_MAJOR) continue;
      const std::string other = fmt::format("frugal_plugin_init_v{}", major);
      if (library_.has(other))
        // Its minor is in a descriptor this core must not ask for: the
        // entry point of another major takes another host table.
        fail(FRUGAL_ERR_ABI_MISMATCH,
             "plugin '{}' was built for frugal ABI {}.x (it exports {}); this core speaks ABI {}.{} and "
             "needs {}",
             path_, major, other, FRUGAL_ABI_VERSION_MAJOR, FRUGAL_ABI_VERSION_MINOR, FRUGAL_PLUGIN_ENTRY_NAME);
    }
    fail(FRUGAL_ERR_PLUGIN_INVALID, "'{}' is not a frugal plugin: it does not export the entry symbol {}", path_,
         FRUGAL_PLUGIN_ENTRY_NAME);
  }
  auto& entry =
      library_.get<frugal_error*(const frugal_host_api*, const frugal_plugin_desc**)>(FRUGAL_PLUGIN_ENTRY_NAME);

  const frugal_plugin_desc* raw = nullptr;
  frugal_error* entry_error = nullptr;
  try {
    entry_error = entry(&host_, &raw);
  } catch (const std::exception& e) {
    fail(FRUGAL_ERR_PLUGIN_INVALID, "plugin '{}': entry point threw an exception ({}); plugins must return errors",
         path_, e.what());
  } catch (...) {
    fail(FRUGAL_ERR_PLUGIN_INVALID,
         "plugin '{}': entry point threw a non-standard exception; plugins must return "
         "errors",
         path_);
  }
  rethrow_if_error(entry_error, fmt::format("plugin '{}' failed to initialise: ", path_));
  if (raw == nullptr)
    fail(FRUGAL_ERR_PLUGIN_INVALID, "plugin '{}': entry point succeeded but returned no descriptor", path_);
  adopt_descriptor(raw);
}

void LoadedPlugin::adopt_descriptor(const frugal_plugin_desc* raw) {
  size_t producer_size = 0;
  std::memcpy(&producer_size, raw, sizeof(size_t));
  if (producer_size < FRUGAL_PLUGIN_DESC_MIN_SIZE)
    fail(FRUGAL_ERR_ABI_MISMATCH, "plugin '{}': descriptor struct_size is {} bytes; at least {} are required", path_,
         producer_size, FRUGAL_PLUGIN_DESC_MIN_SIZE);
  const frugal_plugin_desc desc = read_sized(raw);

  abi_major_ = desc.abi_major;
  abi_minor_ = desc.abi_minor;
  if (desc.abi_major != FRUGAL_ABI_VERSION_MAJOR)
    fail(FRUGAL_ERR_ABI_MISMATCH,
         "plugin '{}' was built for frugal ABI {}.{}; this core speaks ABI {}.{} (the major version must match)", path_,
         desc.abi_major, desc.abi_minor, FRUGAL_ABI_VERSION_MAJOR, FRUGAL_ABI_VERSION_MINOR);

  on_unload_ = desc.on_unload;  // adopt first: a plugin refused below still gets its unload call
  name_ = copy_string(desc.name, true, "name", path_);
  if (!is_valid_component_name(name_))
    fail(FRUGAL_ERR_PLUGIN_INVALID,
         "plugin '{}': name '{}' is invalid (1..64 bytes of [a-z0-9_.-], starting with a letter)", path_, name_);
  version_ = copy_string(desc.version, true, "version", path_);
  vendor_ = copy_string(desc.vendor, true, "vendor", path_);
  license_ = copy_string(desc.license, true, "license", path_);
  description_ = copy_string(desc.description, false, "description", path_);

  if (desc.abi_minor > FRUGAL_ABI_VERSION_MINOR)
    log(FRUGAL_LOG_INFO, fmt::format("built for ABI {}.{}, newer than this core's {}.{}; features past {}.{} are "
                                     "ignored",
                                     desc.abi_major, desc.abi_minor, FRUGAL_ABI_VERSION_MAJOR, FRUGAL_ABI_VERSION_MINOR,
                                     FRUGAL_ABI_VERSION_MAJOR, FRUGAL_ABI_VERSION_MINOR));

  if (desc.strategy_count > kMaxStrategies)
    fail(FRUGAL_ERR_PLUGIN_INVALID, "plugin '{}': strategy_count {} exceeds the limit of {}", path_,
         desc.strategy_count, kMaxStrategies);
  if (desc.strategy_count > 0 && desc.strategies == nullptr)
    fail(FRUGAL_ERR_PLUGIN_INVALID, "plugin '{}': strategy_count is {} but strategies is NULL", path_,
         desc.strategy_count);

  std::set<std::pair<int32_t, std::string>> seen;
  for (size_t i = 0; i < desc.strategy_count; ++i) {
    const size_t before = strategies_.size();
    adopt_strategy(i, desc.strategies[i]);
    if (strategies_.size() == before) continue;  // skipped: a kind this core cannot use yet
    const auto& added = strategies_.back();
    if (!seen.emplace(added.kind, added.name).second)
      fail(FRUGAL_ERR_PLUGIN_INVALID, "plugin '{}' declares {} strategy '{}' twice", path_, kind_name(added.kind),
           added.name);
  }
}

void LoadedPlugin::adopt_strategy(size_t index, const frugal_strategy_desc* raw) {
  if (raw == nullptr) fail(FRUGAL_ERR_PLUGIN_INVALID, "plugin '{}': strategies[{}] is NULL", path_, index);
  size_t producer_size = 0;
  std::memcpy(&producer_size, raw, sizeof(size_t));
  if (producer_size < FRUGAL_STRATEGY_DESC_MIN_SIZE)
    fail(FRUGAL_ERR_ABI_MISMATCH, "plugin '{}': strategies[{}] struct_size is {} bytes; at least {} are required",
         path_, index, producer_size, FRUGAL_STRATEGY_DESC_MIN_SIZE);
  const frugal_strategy_desc desc = read_sized(raw);

  StrategyRecord record;
  record.kind = desc.kind;
  record.flags = desc.flags;
  record.name = copy_string(desc.name, true, fmt::format("strategies[{}].name", index), path_);
  record.summary = copy_string(desc.summary, false, "summary", path_);
  if (!is_valid_component_name(record.name))
    fail(FRUGAL_ERR_PLUGIN_INVALID,
         "plugin '{}': strategy name '{}' is invalid (1..64 bytes of [a-z0-9_.-], starting with a letter)", path_,
         record.name);

  const StrategyKindSpec* spec = find_kind_spec(desc.kind);
  if (spec == nullptr) {
    log(FRUGAL_LOG_WARN, fmt::format("strategy '{}' has kind {} ({}), which this core cannot use yet; skipped",
                                     record.name, desc.kind, kind_name(desc.kind)));
    return;
  }
  if (desc.vtable == nullptr)
    fail(FRUGAL_ERR_PLUGIN_INVALID, "plugin '{}': {} strategy '{}' has a NULL vtable", path_, spec->name, record.name);
  size_t vtable_size = 0;
  std::memcpy(&vtable_size, desc.vtable, sizeof(size_t));
  if (vtable_size < spec->min_size)
    fail(FRUGAL_ERR_ABI_MISMATCH, "plugin '{}': {} strategy '{}' has a vtable of {} bytes; at least {} are required",
         path_, spec->name, record.name, vtable_size, spec->min_size);

  record.vtable_words.assign((spec->full_size + sizeof(uint64_t) - 1) / sizeof(uint64_t), 0);
  std::memcpy(record.vtable_words.data(), desc.vtable, std::min(vtable_size, spec->full_size));
  for (const auto& slot : spec->required) {
    void* function = nullptr;
    std::memcpy(&function, reinterpret_cast<const char*>(record.vtable_words.data()) + slot.offset, sizeof(void*));
    if (function == nullptr)
      fail(FRUGAL_ERR_PLUGIN_INVALID, "plugin '{}': {} strategy '{}' leaves the required vtable slot '{}' NULL", path_,
           spec->name, record.name, slot.name);
  }
  record.options =
      read_option_decls(desc.ext, fmt::format("plugin '{}': {} strategy '{}'", path_, spec->name, record.name));
  strategies_.push_back(std::move(record));
}

}  // namespace frugal
