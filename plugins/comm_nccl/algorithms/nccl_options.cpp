#include "algorithms/nccl_options.hpp"

#include <limits>
#include <string>
#include <vector>

namespace frugal::comm_nccl {
namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

[[noreturn]] void refuse(const std::string& message) { throw sdk::PluginError(FRUGAL_ERR_INVALID_ARGUMENT, message); }

// "options 'bootstrap' and 'unique_id'", "options 'a', 'b' and 'c'".
std::string option_list(const std::vector<const char*>& names) {
  std::string out = "options ";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
    out += std::string("'") + names[i] + "'";
  }
  return out;
}

void read_bootstrap_comm(const sdk::Options& options, NcclOptions& out) {
  out.bootstrap = options.get_comm("bootstrap");
  if (out.bootstrap == nullptr)  // a 2.0 core: it has no comms to give
    refuse("option 'bootstrap' needs a frugal core with communicators (ABI 2.1)");
  const frugal_host_api* host = options.host();
  frugal_comm_info info{};
  info.struct_size = sizeof(info);
  sdk::check(host, host->comm_info(out.bootstrap, &info));
  if (info.device_type != FRUGAL_DEVICE_CPU)
    refuse(
        "option 'bootstrap' must be a comm of host memory (such as 'mpi'), which carries the NCCL id; this one "
        "moves CUDA device memory (to make a sub-group of an nccl comm, split it)");
  out.rank = info.rank;
  out.size = info.size;
}

}  // namespace

NcclOptions read_options(const sdk::Options& options) {
  options.check_known({"bootstrap", "unique_id", "rank", "size", "nccl_comm", "device", "join_timeout_ms"});
  NcclOptions out;
  std::vector<const char*> ways;
  for (const char* way : {"bootstrap", "unique_id", "nccl_comm"})
    if (options.has(way)) ways.push_back(way);
  if (ways.empty())
    refuse(
        "one of options 'bootstrap' (a host comm of the same ranks, e.g. 'mpi'), 'unique_id' (an ncclUniqueId as "
        "hex, with 'rank' and 'size') or 'nccl_comm' (an ncclComm_t to wrap) is required: how this rank finds its "
        "group");
  if (ways.size() > 1) refuse(option_list(ways) + " exclude each other: give one way for this rank to find its group");
  const std::string way = ways.front();

  if (options.has("device")) out.device = static_cast<int32_t>(options.get_int_in("device", 0, 0, kInt32Max));
  out.join_timeout_ms = options.get_int_in("join_timeout_ms", FRUGAL_COMM_DEFAULT_TIMEOUT_MS, 1);

  if (way == "unique_id") {
    out.how = Bootstrap::unique_id;
    for (const char* needed : {"rank", "size"})
      if (!options.has(needed))
        refuse(std::string("option '") + needed + "' is required with 'unique_id' (" +
               (std::string(needed) == "rank" ? "this rank, in [0, size)" : "the number of ranks in the group") + ")");
    out.size = static_cast<int32_t>(options.get_int_in("size", 1, 1, kInt32Max));
    out.rank = static_cast<int32_t>(options.get_int_in("rank", 0, 0, kInt32Max - 1));
    if (out.rank >= out.size)
      throw sdk::PluginError(FRUGAL_ERR_OUT_OF_RANGE,
                             "option 'rank' must be below option 'size' (" + std::to_string(out.size) +
                                 ": ranks 0 to " + std::to_string(out.size - 1) + "); got " + std::to_string(out.rank));
    out.unique_id = decode_unique_id(options.get_string("unique_id", ""), "unique_id");
    return out;
  }
  options.reject_set({"rank", "size"}, "applies only with 'unique_id' (with '" + way +
                                           "' the group itself says this rank's place and its size)");
  if (way == "bootstrap") {
    out.how = Bootstrap::comm;
    read_bootstrap_comm(options, out);
  } else {
    out.how = Bootstrap::wrap;
    out.nccl_comm = static_cast<std::uintptr_t>(options.get_int_in("nccl_comm", 0, 1));
  }
  return out;
}

}  // namespace frugal::comm_nccl
