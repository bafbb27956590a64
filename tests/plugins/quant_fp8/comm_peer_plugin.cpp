// comm_peer: a comm backend for quant_fp8's amax_comm tests in one process.
// Strategy "peer" is rank 0 of a group of 2 whose other rank is made up:
// an all_reduce (max) of fp32 gives max(this rank's value, option
// 'peer_amax'), so a test knows what the group agrees on without a second
// process. Options:
//   peer_amax   the made-up rank's value (default 0);
//   fail_after  collectives that succeed before every later one fails
//               with FRUGAL_ERR_DEADLINE_EXCEEDED, as a peer that stopped
//               calling would make them (default -1: never);
//   device      "cpu" (default) or "cuda": where the comm says its
//               buffers live (it never touches a device).
// Only all_reduce (max, fp32) and barrier are served; split is refused.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "frugal/comm_vtable.h"
#include "frugal/sdk/comm_adapter.hpp"
#include "frugal/sdk/option_decl.hpp"
#include "frugal/sdk/plugin_declaration.hpp"

namespace {

using frugal::sdk::PluginError;

class PeerComm {
 public:
  explicit PeerComm(const frugal::sdk::Options& options) {
    options.check_known({"peer_amax", "fail_after", "device"});
    peer_ = static_cast<float>(options.get_double("peer_amax", 0.0));
    fail_after_ = options.get_int("fail_after", -1);
    on_cuda_ = options.get_choice<bool>("device", "cpu", {{"cpu", false}, {"cuda", true}});
  }

  [[nodiscard]] frugal_comm_info info() const {
    frugal_comm_info out{};
    out.struct_size = sizeof(out);
    out.rank = 0;
    out.size = 2;
    out.device_type = on_cuda_ ? FRUGAL_DEVICE_CUDA : FRUGAL_DEVICE_CPU;
    return out;
  }

  std::unique_ptr<PeerComm> split(int32_t, int32_t, int64_t) {
    throw PluginError(FRUGAL_ERR_UNSUPPORTED, "split: the peer test comm has no sub-groups");
  }

  void run(const frugal_comm_call& call) {
    if (fail_after_ >= 0 && runs_ >= fail_after_) {
      throw PluginError(FRUGAL_ERR_DEADLINE_EXCEEDED,
                        "all_reduce on rank 0 of 2: rank 1 (the made-up peer) did not take part within " +
                            std::to_string(call.timeout_ms) + " ms");
    }
    ++runs_;
    if (call.op == FRUGAL_COMM_BARRIER) return;
    if (call.op != FRUGAL_COMM_ALL_REDUCE || call.dtype != FRUGAL_DTYPE_FLOAT32 || call.reduce_op != FRUGAL_REDUCE_MAX)
      throw PluginError(FRUGAL_ERR_UNSUPPORTED, "the peer test comm serves all_reduce (max) of float32 only");
    for (size_t i = 0; i < call.count; ++i) {
      float mine = 0.0f;
      std::memcpy(&mine, static_cast<const float*>(call.send) + i, sizeof(float));
      const float reduced = std::max(mine, peer_);
      std::memcpy(static_cast<float*>(call.recv) + i, &reduced, sizeof(float));
    }
  }

 private:
  float peer_ = 0.0f;
  int64_t fail_after_ = -1;
  int64_t runs_ = 0;
  bool on_cuda_ = false;
};

constexpr frugal_option_decl kPeerDecls[] = {
    frugal::sdk::double_option("peer_amax", "the made-up rank's value in an all_reduce (max)").default_value("0"),
    frugal::sdk::int_option("fail_after", "collectives that succeed before the rest time out; -1: never")
        .default_value("-1"),
    frugal::sdk::string_option("device", "where the comm says its buffers live")
        .default_value("cpu")
        .choices("cpu|cuda"),
};

constexpr frugal_strategy_desc kStrategies[] = {
    frugal::sdk::comm_strategy<PeerComm>("peer", "rank 0 of 2 with a made-up rank 1 (quant_fp8 amax_comm tests)", 0,
                                         frugal::sdk::options_ext<kPeerDecls>())};

constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
    .name = "comm_peer",
    .version = "1.0.0",
    .vendor = "frugal tests",
    .license = "MIT",
    .description = "A group of two in one process, for quant_fp8's amax agreement tests",
});

}  // namespace

FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
