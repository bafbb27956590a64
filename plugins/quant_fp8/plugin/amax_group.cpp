#include "plugin/amax_group.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace frugal::quant::plugin {

using sdk::PluginError;

AmaxGroup::AmaxGroup(const frugal_host_api* host, frugal_comm* comm) : host_(host), comm_(comm) {
  frugal_comm_info info{};
  info.struct_size = sizeof(info);
  sdk::check(host_, host_->comm_info(comm_, &info));
  if (info.device_type != FRUGAL_DEVICE_CPU) {
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT,
                      "option 'amax_comm' is a comm whose buffers live on CUDA:" + std::to_string(info.device_id) +
                          "; the amax is reduced in host memory, so it must be a host comm (e.g. 'mpi' or 'local')");
  }
  rank_ = info.rank;
  size_ = info.size;
}

float AmaxGroup::max(float amax, const char* consequence) const {
  const float send = std::isnan(amax) ? std::numeric_limits<float>::infinity() : amax;
  float reduced = 0.0f;
  frugal_comm_call call{};
  call.struct_size = sizeof(call);
  call.op = FRUGAL_COMM_ALL_REDUCE;
  call.dtype = FRUGAL_DTYPE_FLOAT32;
  call.reduce_op = FRUGAL_REDUCE_MAX;
  call.send = &send;
  call.recv = &reduced;
  call.count = 1;
  call.timeout_ms = 0;  // the comm's deadline (frugal_comm_set_timeout)
  if (frugal_error* error = host_->comm_run(comm_, &call)) {
    const std::string line = "the all_reduce (max) of the amax over option 'amax_comm' (rank " + std::to_string(rank_) +
                             " of " + std::to_string(size_) + ") failed; " + consequence +
                             " (the error returned is the comm's)";
    host_->log(host_, FRUGAL_LOG_ERROR, line.c_str());
    throw sdk::HostError(host_, error);
  }
  return reduced;
}

}  // namespace frugal::quant::plugin
