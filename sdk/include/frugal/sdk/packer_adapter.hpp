// frugal/sdk/packer_adapter.hpp — declare a sequence packer strategy as a
// plain C++ class. The class needs:
//   explicit Impl(const frugal::sdk::Options& options);   // the strategy's own options
//   void pack(const frugal::sdk::PackRequest& request,
//             frugal::sdk::PackWriter& out) const;         // throw PluginError on failure
// and packer_strategy<Impl>(name, summary, flags) yields its descriptor.
// The core checks the assignment and derives every output format from it.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "frugal/packer_vtable.h"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::sdk {

// The request as C++ values; lengths stay valid during pack only.
struct PackRequest {
  std::span<const int64_t> lengths;  // each in [1, max_len]
  int64_t max_len;
  int64_t max_per_pack;  // 0 = unlimited
  uint64_t seed;
};

// Writes packs into the core's buffers, with bounds checks.
class PackWriter {
 public:
  explicit PackWriter(frugal_pack_assignment& out, std::size_t units) : out_(out), units_(units) {
    out_.pack_offsets[0] = 0;
  }

  // Appends one pack holding `units` (unit indices, in row order).
  void add_pack(std::span<const int64_t> units) {
    if (units.empty()) throw PluginError(FRUGAL_ERR_INTERNAL, "pack: an empty pack was written");
    if (units.size() > units_ - written_)
      throw PluginError(FRUGAL_ERR_INTERNAL, "pack: more units written than the request holds");
    for (const int64_t u : units) out_.units[written_++] = u;
    out_.pack_offsets[++out_.pack_count] = static_cast<int64_t>(written_);
  }

  // Names the method that produced the packs (a string literal or another
  // string that lives until the plugin unloads).
  void set_method(const char* static_name) { out_.method = static_name; }

 private:
  frugal_pack_assignment& out_;
  std::size_t units_;
  std::size_t written_ = 0;
};

template <typename Impl>
struct PackerAdapter {
  struct Instance {
    const frugal_host_api* host;
    Impl impl;
  };

  static frugal_error* create(const frugal_host_api* host, const frugal_options* options, void** instance) {
    return guard(host, [&] {
      if (instance == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "create: instance is NULL");
      *instance = new Instance{host, Impl(Options(host, options))};
    });
  }

  static void destroy(void* instance) { delete static_cast<Instance*>(instance); }

  static frugal_error* pack(void* instance, const frugal_pack_request* request, frugal_pack_assignment* out) {
    auto* self = static_cast<Instance*>(instance);
    return guard(self->host, [&] {
      if (request == nullptr || out == nullptr)
        throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "pack: request or output is NULL");
      out->pack_count = 0;
      PackWriter writer(*out, request->count);
      self->impl.pack(PackRequest{std::span<const int64_t>(request->lengths, request->count), request->max_len,
                                  request->max_per_pack, request->seed},
                      writer);
    });
  }

  static constexpr frugal_packer_vtable vtable{sizeof(frugal_packer_vtable), &create, &destroy, &pack};
};

// ext: the descriptor's extension chain, e.g. options_ext<kOptions>() (option_decl.hpp).
template <typename Impl>
constexpr frugal_strategy_desc packer_strategy(const char* name, const char* summary, uint32_t flags,
                                               const frugal_ext_header* ext = nullptr) {
  return frugal_strategy_desc{
      sizeof(frugal_strategy_desc), FRUGAL_KIND_PACKER, flags, name, summary, &PackerAdapter<Impl>::vtable, ext};
}

}  // namespace frugal::sdk
