#include "direct_plugin.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "frugal/comm_vtable.h"

namespace frugal::conformance {

namespace {

std::atomic<long> g_outstanding{0};

void host_log(const frugal_host_api*, int32_t, const char*) {}

void* host_alloc(const frugal_host_api*, size_t size, size_t alignment) {
  if (alignment == 0) alignment = 16;
  if (size == 0 || (alignment & (alignment - 1)) != 0) return nullptr;
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  void* p = nullptr;
  if (posix_memalign(&p, alignment, size) != 0) return nullptr;
  ++g_outstanding;
  return p;
}

void host_free(const frugal_host_api*, void* ptr) {
  if (ptr == nullptr) return;
  --g_outstanding;
  std::free(ptr);
}

// The host table's options_check_known, over libfrugal's public options
// iteration: the same rule the core applies (a misspelt option is an error).
frugal_error* host_check_known(const frugal_options* options, const char* const* known, size_t count,
                               const char* owner) {
  if (count > 0 && known == nullptr)
    return frugal_error_create(FRUGAL_ERR_INVALID_ARGUMENT, "options_check_known: known is NULL");
  const size_t n = frugal_options_count(options);
  for (size_t i = 0; i < n; ++i) {
    const char* name = nullptr;
    int32_t type = 0;
    if (frugal_error* e = frugal_options_entry(options, i, &name, &type)) return e;
    bool found = false;
    std::string list;
    for (size_t k = 0; k < count; ++k) {
      if (known[k] == nullptr) continue;
      if (std::strcmp(known[k], name) == 0) found = true;
      list += std::string(list.empty() ? "" : ", ") + known[k];
    }
    if (!found) {
      const std::string message =
          std::string(owner ? owner : "") + (owner ? ": " : "") + "unknown option '" + name + "' (known: " + list + ")";
      return frugal_error_create(FRUGAL_ERR_INVALID_ARGUMENT, message.c_str());
    }
  }
  return nullptr;
}

// The 2.1 comm slots (plugin.h: never NULL in a 2.1 table). The kit hands
// a directly loaded plugin no communicator (no option carries one from the
// command line), so option_get_comm reads the options through the public
// API and finds none, comm_info describes through the public getters, and
// comm_run, which needs a comm the kit never gives, says so.
frugal_error* host_comm_info(const frugal_comm* comm, frugal_comm_info* out) {
  if (comm == nullptr || out == nullptr)
    return frugal_error_create(FRUGAL_ERR_INVALID_ARGUMENT, "comm_info: comm and out must not be NULL");
  if (out->struct_size < offsetof(frugal_comm_info, device_type) + sizeof out->device_type)
    return frugal_error_create(FRUGAL_ERR_ABI_MISMATCH, "comm_info: out->struct_size too small");
  out->rank = frugal_comm_rank(comm);
  out->size = frugal_comm_size(comm);
  out->device_type = frugal_comm_device_type(comm);
  return nullptr;
}

frugal_error* host_comm_run(frugal_comm* /*comm*/, const frugal_comm_call* /*call*/) {
  return frugal_error_create(FRUGAL_ERR_UNSUPPORTED,
                             "comm_run: the conformance kit hands directly loaded plugins no communicator");
}

}  // namespace

long DirectPlugin::outstanding() { return g_outstanding.load(); }

DirectPlugin::DirectPlugin(const std::string& path) {
  host_.struct_size = sizeof(frugal_host_api);
  host_.abi_major = FRUGAL_ABI_VERSION_MAJOR;
  host_.abi_minor = FRUGAL_ABI_VERSION_MINOR;
  host_.log = &host_log;
  host_.alloc = &host_alloc;
  host_.free = &host_free;
  host_.error_create = &frugal_error_create;
  host_.option_get_int = &frugal_options_get_int;
  host_.option_get_double = &frugal_options_get_double;
  host_.option_get_bool = &frugal_options_get_bool;
  host_.option_get_string = &frugal_options_get_string;
  host_.options_check_known = &host_check_known;
  host_.option_type = &frugal_options_type;
  host_.error_destroy = &frugal_error_destroy;
  host_.option_get_comm = &frugal_options_get_comm;
  host_.comm_info = &host_comm_info;
  host_.comm_run = &host_comm_run;

  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) throw std::runtime_error(path + ": cannot be loaded: " + dlerror());
  auto init = reinterpret_cast<frugal_plugin_init_fn>(dlsym(handle_, FRUGAL_PLUGIN_ENTRY_NAME));
  if (init == nullptr) {
    dlclose(handle_);
    throw std::runtime_error(path + ": no " FRUGAL_PLUGIN_ENTRY_NAME " symbol");
  }
  if (frugal_error* e = init(&host_, &desc_)) {
    const std::string message = path + ": init failed: " + frugal_error_message(e);
    frugal_error_destroy(e);
    dlclose(handle_);
    throw std::runtime_error(message);
  }
  if (desc_ == nullptr) {
    dlclose(handle_);
    throw std::runtime_error(path + ": init succeeded without a descriptor");
  }
}

DirectPlugin::~DirectPlugin() { unload(); }

void DirectPlugin::unload() {
  if (handle_ == nullptr) return;
  if (desc_->struct_size >= offsetof(frugal_plugin_desc, on_unload) + sizeof(void*) && desc_->on_unload)
    desc_->on_unload();
  dlclose(handle_);
  handle_ = nullptr;
}

const frugal_strategy_desc* DirectPlugin::strategy(int32_t kind, const std::string& name) const {
  for (size_t i = 0; i < desc_->strategy_count; ++i) {
    const frugal_strategy_desc* s = desc_->strategies[i];
    if (s != nullptr && s->kind == kind && s->name != nullptr && name == s->name) return s;
  }
  return nullptr;
}

}  // namespace frugal::conformance
