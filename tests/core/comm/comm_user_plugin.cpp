// comm_user: a plugin that uses the collectives of a comm the host hands
// it, through the host table only (it never links MPI or libfrugal).
// Strategy "rank_sum" (a schedule, the simplest kind): option "comm" is
// the group; lr(step) all-reduces (step + rank) over the group with
// host->comm_run, so a host on N ranks reads N * step + N (N - 1) / 2.
// Without a comm it refuses to be created.
#include <string>

#include "frugal/comm_vtable.h"
#include "frugal/sdk/option_decl.hpp"
#include "frugal/sdk/plugin_declaration.hpp"
#include "frugal/sdk/schedule_adapter.hpp"

namespace {

using frugal::sdk::PluginError;

class RankSum {
 public:
  explicit RankSum(const frugal::sdk::Options& options) : host_(options.host()), comm_(options.get_comm("comm")) {
    if (comm_ == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'comm' is required");
    frugal_comm_info info{};
    info.struct_size = sizeof(info);
    frugal::sdk::check(host_, host_->comm_info(comm_, &info));
    rank_ = info.rank;
  }

  [[nodiscard]] double lr(int64_t step) const {
    const double mine = static_cast<double>(step + rank_);
    double sum = 0.0;
    frugal_comm_call call{};
    call.struct_size = sizeof(call);
    call.op = FRUGAL_COMM_ALL_REDUCE;
    call.dtype = FRUGAL_DTYPE_FLOAT64;
    call.reduce_op = FRUGAL_REDUCE_SUM;
    call.send = &mine;
    call.recv = &sum;
    call.count = 1;
    frugal::sdk::check(host_, host_->comm_run(comm_, &call));
    return sum;
  }

 private:
  const frugal_host_api* host_;
  frugal_comm* comm_;
  int32_t rank_ = 0;
};

constexpr frugal_option_decl kRankSumDecls[] = {
    frugal::sdk::comm_option("comm", "the group whose ranks are summed").required(),
};

constexpr frugal_strategy_desc kStrategies[] = {
    frugal::sdk::schedule_strategy<RankSum>("rank_sum", "all-reduces step + rank over the comm given as option 'comm'",
                                            0, frugal::sdk::options_ext<kRankSumDecls>())};

constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
    .name = "comm_user",
    .version = "1.0.0",
    .vendor = "frugal tests",
    .license = "MIT",
    .description = "Collectives through the host table, for the comm tests",
});

}  // namespace

FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
