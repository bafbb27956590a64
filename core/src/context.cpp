// frugal_context: plugin loading, the strategy registry and introspection.
#include "context.hpp"

#include <filesystem>
#include <system_error>

#include "error.hpp"
#include "frugal/context.h"
#include "frugal/error.h"
#include "plugin_dirs.hpp"
#include "sized_structs.hpp"
#include "strategy_kinds.hpp"

namespace frugal {
namespace {

void record_failure(frugal_context* context, const std::string& path, int32_t code, const std::string& message) {
  context->failures.push_back({path, message, code});
  context->log->write(FRUGAL_LOG_WARN, "core", message);
}

// Adds a validated plugin's strategies to the registry. Caller holds the lock.
void register_plugin(frugal_context* context, std::shared_ptr<LoadedPlugin> plugin) {
  const size_t plugin_index = context->plugins.size();
  for (size_t i = 0; i < plugin->strategies().size(); ++i) {
    const auto& strategy = plugin->strategies()[i];
    auto [it, inserted] =
        context->owners.try_emplace({strategy.kind, strategy.name}, frugal_context::Owner{plugin_index, i});
    if (!inserted) {
      const auto& owner = context->plugins[it->second.plugin_index];
      context->log->write(FRUGAL_LOG_WARN, "core",
                          fmt::format("{} strategy '{}' of plugin '{}' ({}) is shadowed by plugin '{}' ({}); "
                                      "reach it as '{}/{}'",
                                      kind_name(strategy.kind), strategy.name, plugin->name(), plugin->path(),
                                      owner->name(), owner->path(), plugin->name(), strategy.name));
    }
  }
  context->log->write(FRUGAL_LOG_DEBUG, "core",
                      fmt::format("loaded plugin '{}' {} from {}", plugin->name(), plugin->version(), plugin->path()));
  context->plugins.push_back(std::move(plugin));
}

// Loads one file; returns false when it was already loaded. Caller holds the lock.
bool load_locked(frugal_context* context, const std::filesystem::path& requested) {
  check_plugin_file(requested);
  std::error_code ec;
  const auto canonical = std::filesystem::canonical(requested, ec);
  if (ec) fail(FRUGAL_ERR_NOT_FOUND, "plugin file '{}' cannot be opened: {}", requested.string(), ec.message());
  for (const auto& plugin : context->plugins)
    if (plugin->path() == canonical.string()) return false;

  auto plugin = LoadedPlugin::load(canonical, context->log);
  for (const auto& other : context->plugins) {
    if (other == plugin) return false;  // the same file under another name (a hard link)
    if (other->name() == plugin->name())
      fail(FRUGAL_ERR_ALREADY_EXISTS, "plugin '{}' from '{}' is already loaded from '{}'; refusing the second copy",
           plugin->name(), plugin->path(), other->path());
  }
  register_plugin(context, std::move(plugin));
  return true;
}

// Loads and records failure instead of throwing. Caller holds the lock.
bool try_load_locked(frugal_context* context, const std::filesystem::path& path) {
  try {
    return load_locked(context, path);
  } catch (const Error& e) {
    record_failure(context, path.string(), e.code(), e.what());
  } catch (const std::exception& e) {
    record_failure(context, path.string(), FRUGAL_ERR_INTERNAL,
                   fmt::format("loading '{}' failed unexpectedly: {}", path.string(), e.what()));
  }
  return false;
}

const frugal_context::Owner* find_owner(const frugal_context* context, int32_t kind, const std::string& name) {
  auto it = context->owners.find({kind, name});
  return it == context->owners.end() ? nullptr : &it->second;
}

// Plugin `index` of a context (its mutex held), or OUT_OF_RANGE.
const LoadedPlugin& plugin_at(const frugal_context* context, size_t index) {
  if (index >= context->plugins.size())
    fail(FRUGAL_ERR_OUT_OF_RANGE, "plugin index {} out of range ({} loaded)", index, context->plugins.size());
  return *context->plugins[index];
}

// Strategy `index` of a loaded plugin, or OUT_OF_RANGE.
const StrategyRecord& strategy_at(const LoadedPlugin& plugin, size_t index) {
  if (index >= plugin.strategies().size())
    fail(FRUGAL_ERR_OUT_OF_RANGE, "strategy index {} out of range (plugin '{}' has {})", index, plugin.name(),
         plugin.strategies().size());
  return plugin.strategies()[index];
}

}  // namespace

ResolvedStrategy resolve_strategy(const frugal_context* context, int32_t kind, const char* name) {
  require_non_null(context, "resolve_strategy", "context");
  require_non_null(name, "resolve_strategy", "name");
  std::lock_guard lock(context->mutex);
  const std::string requested(name);
  const size_t slash = requested.find('/');
  if (slash != std::string::npos) {
    const std::string plugin_name = requested.substr(0, slash), strategy_name = requested.substr(slash + 1);
    for (const auto& plugin : context->plugins) {
      if (plugin->name() != plugin_name) continue;
      for (const auto& strategy : plugin->strategies())
        if (strategy.kind == kind && strategy.name == strategy_name) return {plugin, &strategy};
      fail(FRUGAL_ERR_NOT_FOUND, "plugin '{}' has no {} strategy named '{}'", plugin_name, kind_name(kind),
           strategy_name);
    }
    fail(FRUGAL_ERR_NOT_FOUND, "no plugin named '{}' is loaded (asked for {} '{}')", plugin_name, kind_name(kind),
         requested);
  }
  if (const auto* owner = find_owner(context, kind, requested)) {
    const auto& plugin = context->plugins[owner->plugin_index];
    return {plugin, &plugin->strategies()[owner->strategy_index]};
  }
  std::string available;
  for (const auto& [key, owner] : context->owners)
    if (key.first == kind) available += fmt::format("{}{}", available.empty() ? "" : ", ", key.second);
  if (context->plugins.empty())
    fail(FRUGAL_ERR_NOT_FOUND,
         "no {} strategy named '{}': no plugins are loaded (call "
         "frugal_context_discover_plugins or frugal_context_load_plugin first)",
         kind_name(kind), requested);
  fail(FRUGAL_ERR_NOT_FOUND, "no {} strategy named '{}' (available: {})", kind_name(kind), requested,
       available.empty() ? "none" : available);
}

}  // namespace frugal

using frugal::guard;
using frugal::require_non_null;

extern "C" {

FRUGAL_API frugal_error* frugal_context_create(frugal_context** out) {
  return guard("frugal_context_create", [&] {
    require_non_null(out, "frugal_context_create", "out");
    *out = new frugal_context();
  });
}

FRUGAL_API void frugal_context_destroy(frugal_context* context) { delete context; }

FRUGAL_API frugal_error* frugal_context_set_log_callback(frugal_context* context, frugal_log_fn callback,
                                                         void* user_data, int32_t min_level) {
  return guard("frugal_context_set_log_callback", [&] {
    require_non_null(context, "frugal_context_set_log_callback", "context");
    context->log->set(callback, user_data, min_level);
  });
}

FRUGAL_API frugal_error* frugal_context_add_plugin_dir(frugal_context* context, const char* path) {
  return guard("frugal_context_add_plugin_dir", [&] {
    require_non_null(context, "frugal_context_add_plugin_dir", "context");
    require_non_null(path, "frugal_context_add_plugin_dir", "path");
    if (*path == '\0') frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "frugal_context_add_plugin_dir: path is empty");
    std::lock_guard lock(context->mutex);
    context->host_dirs.emplace_back(path);
  });
}

FRUGAL_API frugal_error* frugal_context_discover_plugins(frugal_context* context, uint32_t flags, size_t* loaded) {
  return guard("frugal_context_discover_plugins", [&] {
    require_non_null(context, "frugal_context_discover_plugins", "context");
    std::lock_guard lock(context->mutex);
    size_t count = 0;
    for (const auto& dir : frugal::plugin_search_dirs(flags, context->host_dirs)) {
      std::error_code ec;
      if (!std::filesystem::is_directory(dir.path, ec)) {
        if (dir.must_exist)
          frugal::record_failure(context, dir.path.string(), FRUGAL_ERR_NOT_FOUND,
                                 fmt::format("plugin directory '{}' (from {}) does not exist or is not a directory",
                                             dir.path.string(), dir.origin));
        continue;
      }
      for (const auto& file : frugal::plugin_files_in(dir.path))
        if (frugal::try_load_locked(context, file)) ++count;
    }
    if (loaded != nullptr) *loaded = count;
  });
}

FRUGAL_API frugal_error* frugal_context_load_plugin(frugal_context* context, const char* path) {
  return guard("frugal_context_load_plugin", [&] {
    require_non_null(context, "frugal_context_load_plugin", "context");
    require_non_null(path, "frugal_context_load_plugin", "path");
    std::lock_guard lock(context->mutex);
    try {
      frugal::load_locked(context, path);
    } catch (const frugal::Error& e) {
      frugal::record_failure(context, path, e.code(), e.what());
      throw;
    } catch (const std::exception& e) {
      frugal::record_failure(context, path, FRUGAL_ERR_INTERNAL,
                             fmt::format("loading '{}' failed unexpectedly: {}", path, e.what()));
      throw;
    }
  });
}

FRUGAL_API size_t frugal_context_plugin_count(const frugal_context* context) {
  return frugal::guard_value<size_t>(0, [&]() -> size_t {
    if (context == nullptr) return 0;
    std::lock_guard lock(context->mutex);
    return context->plugins.size();
  });
}

FRUGAL_API frugal_error* frugal_context_plugin_info(const frugal_context* context, size_t index,
                                                    frugal_plugin_info* info) {
  return guard("frugal_context_plugin_info", [&] {
    require_non_null(context, "frugal_context_plugin_info", "context");
    std::lock_guard lock(context->mutex);
    if (index >= context->plugins.size())
      frugal::fail(FRUGAL_ERR_OUT_OF_RANGE, "plugin index {} out of range ({} loaded)", index, context->plugins.size());
    const auto& p = *context->plugins[index];
    frugal_plugin_info full{};
    full.name = p.name().c_str();
    full.version = p.version().c_str();
    full.vendor = p.vendor().c_str();
    full.license = p.license().c_str();
    full.description = p.description().c_str();
    full.path = p.path().c_str();
    full.abi_major = p.abi_major();
    full.abi_minor = p.abi_minor();
    full.strategy_count = p.strategies().size();
    frugal::write_sized(info, full, "frugal_context_plugin_info");
  });
}

FRUGAL_API frugal_error* frugal_context_strategy_info(const frugal_context* context, size_t plugin_index,
                                                      size_t strategy_index, frugal_strategy_info* info) {
  return guard("frugal_context_strategy_info", [&] {
    require_non_null(context, "frugal_context_strategy_info", "context");
    std::lock_guard lock(context->mutex);
    const auto& p = frugal::plugin_at(context, plugin_index);
    const auto& s = frugal::strategy_at(p, strategy_index);
    const auto* owner = frugal::find_owner(context, s.kind, s.name);
    frugal_strategy_info full{};
    full.kind = s.kind;
    full.flags = s.flags;
    full.name = s.name.c_str();
    full.summary = s.summary.c_str();
    full.plugin_name = p.name().c_str();
    full.shadowed = owner != nullptr && owner->plugin_index != plugin_index ? 1 : 0;
    full.option_count = s.options ? s.options->size() : 0;
    frugal::write_sized(info, full, "frugal_context_strategy_info");
  });
}

FRUGAL_API frugal_error* frugal_context_strategy_option(const frugal_context* context, size_t plugin_index,
                                                        size_t strategy_index, size_t option_index,
                                                        frugal_option_info* info) {
  return guard("frugal_context_strategy_option", [&] {
    require_non_null(context, "frugal_context_strategy_option", "context");
    std::lock_guard lock(context->mutex);
    const auto& p = frugal::plugin_at(context, plugin_index);
    const auto& s = frugal::strategy_at(p, strategy_index);
    const size_t count = s.options ? s.options->size() : 0;
    if (option_index >= count)
      frugal::fail(FRUGAL_ERR_OUT_OF_RANGE, "option index {} out of range ({} strategy '{}' declares {})", option_index,
                   frugal_strategy_kind_name(s.kind), s.name, count);
    const auto& d = (*s.options)[option_index];
    frugal_option_info full{};
    full.name = d.name.c_str();
    full.type = d.type;
    full.flags = d.flags;
    full.default_value = d.default_value ? d.default_value->c_str() : nullptr;
    full.min = d.flags & FRUGAL_OPTION_DECL_HAS_MIN ? d.min : 0.0;
    full.max = d.flags & FRUGAL_OPTION_DECL_HAS_MAX ? d.max : 0.0;
    full.choices = d.choices ? d.choices->c_str() : nullptr;
    full.doc = d.doc.c_str();
    frugal::write_sized(info, full, "frugal_context_strategy_option");
  });
}

FRUGAL_API size_t frugal_context_load_failure_count(const frugal_context* context) {
  return frugal::guard_value<size_t>(0, [&]() -> size_t {
    if (context == nullptr) return 0;
    std::lock_guard lock(context->mutex);
    return context->failures.size();
  });
}

FRUGAL_API frugal_error* frugal_context_load_failure(const frugal_context* context, size_t index,
                                                     frugal_load_failure_info* info) {
  return guard("frugal_context_load_failure", [&] {
    require_non_null(context, "frugal_context_load_failure", "context");
    std::lock_guard lock(context->mutex);
    if (index >= context->failures.size())
      frugal::fail(FRUGAL_ERR_OUT_OF_RANGE, "failure index {} out of range ({} recorded)", index,
                   context->failures.size());
    const auto& f = context->failures[index];
    frugal_load_failure_info full{};
    full.path = f.path.c_str();
    full.message = f.message.c_str();
    full.code = f.code;
    frugal::write_sized(info, full, "frugal_context_load_failure");
  });
}

FRUGAL_API frugal_error* frugal_context_find_strategy(const frugal_context* context, int32_t kind, const char* name,
                                                      frugal_strategy_info* info) {
  return guard("frugal_context_find_strategy", [&] {
    const auto resolved = frugal::resolve_strategy(context, kind, name);
    std::lock_guard lock(context->mutex);
    const auto* owner = frugal::find_owner(context, kind, resolved.record->name);
    const bool is_owner = owner != nullptr && context->plugins[owner->plugin_index].get() == resolved.plugin.get();
    frugal_strategy_info full{};
    full.kind = resolved.record->kind;
    full.flags = resolved.record->flags;
    full.name = resolved.record->name.c_str();
    full.summary = resolved.record->summary.c_str();
    full.plugin_name = resolved.plugin->name().c_str();
    full.shadowed = is_owner ? 0 : 1;
    full.option_count = resolved.record->options ? resolved.record->options->size() : 0;
    frugal::write_sized(info, full, "frugal_context_find_strategy");
  });
}

}  // extern "C"
