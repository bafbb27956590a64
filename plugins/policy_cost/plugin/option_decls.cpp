#include "plugin/option_decls.hpp"

#include <cstdint>
#include <limits>

#include "frugal/sdk/option_decl.hpp"
#include "plugin/config.hpp"

namespace frugal::policy::plugin {
namespace {

using sdk::bool_option;
using sdk::double_option;
using sdk::int_option;
using sdk::string_option;

// A bound written "> x" in a doc line is exclusive: config.cpp checks it,
// the declaration leaves it out (declared bounds are inclusive).
constexpr frugal_option_decl kCadence[] = {
    double_option("heartbeat_interval_s", "seconds between heartbeat checkpoints, 0 = no heartbeat timer")
        .default_value("0")
        .min(0.0),
    int_option("full_interval_steps", "steps between full checkpoints, 0 = no step rule").default_value("0").min(0.0),
    double_option("full_interval_s", "seconds between full checkpoints, 0 = no time rule").default_value("0").min(0.0),
    bool_option("young_daly", "full checkpoints at the Young/Daly interval from measured cost and MTBF")
        .default_value("false"),
    double_option("checkpoint_cost_s", "prior seconds one full checkpoint stalls training, finite and > 0")
        .default_value("60"),
    double_option("mtbf_s", "prior mean seconds between failures, finite and > 0").default_value("86400"),
    double_option("notice_safety", "a full checkpoint on a notice when its cost <= this share of it, in (0, 1]")
        .default_value("0.5")
        .max(1.0),
};

constexpr frugal_option_decl kSpotPhase[] = {
    int_option("window", "loss samples in each trend test's window")
        .default_value("20")
        .range(5.0, static_cast<double>(kMaxWindow)),
    double_option("sample_interval_s", "seconds between loss samples, 0 = every record").default_value("0").min(0.0),
    double_option("z_threshold", "Mann-Kendall z a descent must reach (z <= -z_threshold), finite and > 0")
        .default_value("2.33"),
    double_option("max_noise", "largest median residual around the trend line, as a share of its drop, finite and > 0")
        .default_value("0.5"),
    int_option("confirmations", "trend tests in a row that must pass before moving to reserved for good")
        .default_value("3")
        .min(1.0),
    double_option("min_spot_s", "seconds to stay on spot at least before moving to reserved")
        .default_value("0")
        .min(0.0),
    double_option("reserved_price", "reserved price per node-hour, 0 = unknown (no price rule)")
        .default_value("0")
        .min(0.0),
    double_option("max_price_ratio", "a spot price above this share of reserved_price is a price spike, finite and > 0")
        .default_value("0.8"),
    int_option("max_preemptions", "restarts within preemption_window_s that make a preemption spike")
        .default_value("3")
        .range(1.0, static_cast<double>(kMaxPreemptions)),
    double_option("preemption_window_s", "seconds over which restarts are counted, finite and > 0")
        .default_value("21600"),
    double_option("cooldown_s", "seconds on reserved after the last spike before going back to spot")
        .default_value("3600")
        .min(0.0),
};

// min_nodes has no declared max: max_nodes bounds it (min_nodes <= max_nodes).
constexpr frugal_option_decl kAutoscaler[] = {
    int_option("min_nodes", "fewest nodes to scale down to, at most max_nodes").default_value("1").min(1.0),
    int_option("max_nodes", "most nodes to scale up to, at least min_nodes")
        .required()
        .range(1.0, static_cast<double>(std::numeric_limits<uint32_t>::max())),
    double_option("window_s",
                  "seconds per window; the mean losses of back-to-back windows are compared, finite and > 0")
        .default_value("3600"),
    double_option("plateau_improvement", "relative improvement between windows below which the node count scales up")
        .default_value("0.05")
        .min(0.0),
    double_option("fast_improvement",
                  "relative improvement between windows above which the node count scales down, "
                  "> plateau_improvement")
        .default_value("0.2"),
    double_option("scale_factor", "factor the node count grows or shrinks by, finite and > 1").default_value("2"),
    double_option("cooldown_s", "seconds after a change before the next one; 2 x window_s when absent").min(0.0),
};

constexpr frugal_option_decl kEarlyStop[] = {
    string_option("metric", "loss watched: eval (evaluation loss) or train (training loss)")
        .default_value("eval")
        .choices("eval|train"),
    int_option("patience", "evaluations (records, for metric train) without improvement before stopping")
        .default_value("5")
        .min(1.0),
    double_option("min_delta", "least drop below the best loss that counts as an improvement")
        .default_value("0")
        .min(0.0),
    string_option("mode", "absolute: min_delta is a loss drop; relative: min_delta x |best loss|")
        .default_value("absolute")
        .choices("absolute|relative"),
    int_option("min_step", "no stop before this step").default_value("0").min(0.0),
};

}  // namespace

const frugal_strategy_options_ext kCadenceOptions = sdk::DeclaredOptions<kCadence>::ext;
const frugal_strategy_options_ext kSpotPhaseOptions = sdk::DeclaredOptions<kSpotPhase>::ext;
const frugal_strategy_options_ext kAutoscalerOptions = sdk::DeclaredOptions<kAutoscaler>::ext;
const frugal_strategy_options_ext kEarlyStopOptions = sdk::DeclaredOptions<kEarlyStop>::ext;

}  // namespace frugal::policy::plugin
