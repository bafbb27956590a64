// One plugin file, loaded, negotiated and validated. Everything the core
// keeps about a plugin is copied out of its descriptor at load time, so a
// malformed or later-mutated descriptor cannot hurt the host afterwards.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#define BOOST_DLL_USE_STD_FS
#include <boost/dll/shared_library.hpp>

#include "frugal/plugin.h"
#include "log_sink.hpp"
#include "option_decls.hpp"

namespace frugal {

// A validated strategy. The vtable is a zero-filled copy sized for this
// core, so slots the plugin's (older, smaller) table lacks read as NULL.
struct StrategyRecord {
  int32_t kind = 0;
  uint32_t flags = 0;
  std::string name;
  std::string summary;
  std::vector<uint64_t> vtable_words;  // uint64_t storage keeps pointer alignment
  // Declared options; nullopt when the strategy declares none.
  std::optional<std::vector<OptionDecl>> options;

  template <typename Vtable>
  [[nodiscard]] const Vtable& vtable() const {
    return *reinterpret_cast<const Vtable*>(vtable_words.data());
  }
};

class LoadedPlugin {
 public:
  // Loads, initialises and validates `path` (already canonical), or returns
  // the instance already loaded from the same file (same device and inode)
  // anywhere in this process. Throws frugal::Error naming the file and the
  // reason; a refused library is unloaded before the exception leaves.
  static std::shared_ptr<LoadedPlugin> load(const std::filesystem::path& path, std::shared_ptr<LogSink> log);

  ~LoadedPlugin();
  LoadedPlugin(const LoadedPlugin&) = delete;
  LoadedPlugin& operator=(const LoadedPlugin&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const std::string& version() const { return version_; }
  [[nodiscard]] const std::string& vendor() const { return vendor_; }
  [[nodiscard]] const std::string& license() const { return license_; }
  [[nodiscard]] const std::string& description() const { return description_; }
  [[nodiscard]] uint32_t abi_major() const { return abi_major_; }
  [[nodiscard]] uint32_t abi_minor() const { return abi_minor_; }
  [[nodiscard]] const std::vector<StrategyRecord>& strategies() const { return strategies_; }

  // The host services table handed to this plugin; valid while it is loaded.
  [[nodiscard]] const frugal_host_api* host() const { return &host_; }

  // Logs under this plugin's name (or its file name before the name is known).
  void log(int32_t level, std::string_view message) const;

 private:
  explicit LoadedPlugin(std::shared_ptr<LogSink> log);
  void open_and_initialise(const std::filesystem::path& path);
  void adopt_descriptor(const frugal_plugin_desc* raw);
  void adopt_strategy(size_t index, const frugal_strategy_desc* raw);

  // Declared first so it is destroyed last: nothing of the plugin's code
  // may run after the library is unmapped.
  boost::dll::shared_library library_;
  std::shared_ptr<LogSink> log_;
  frugal_host_api host_{};
  std::string path_, name_, version_, vendor_, license_, description_;
  uint32_t abi_major_ = 0;
  uint32_t abi_minor_ = 0;
  void (*on_unload_)(void) = nullptr;
  std::vector<StrategyRecord> strategies_;
};

// Checks a plugin or strategy name: 1..64 bytes, [a-z0-9_.-], first a letter.
bool is_valid_component_name(std::string_view name);

}  // namespace frugal
