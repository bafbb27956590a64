#include "option_decls.hpp"

#include "frugal/sdk/option_decl.hpp"

namespace frugal::schedule_lr {
namespace {

using sdk::double_option;
using sdk::int_option;
using sdk::string_option;

constexpr frugal_option_decl kLr = double_option("lr", "peak learning rate, finite and > 0").default_value("0.001");
constexpr frugal_option_decl kMinLr =
    double_option("min_lr", "floor the rate decays to, in [0, lr]").default_value("0").min(0.0);
constexpr frugal_option_decl kWarmup =
    int_option("warmup_steps", "steps of linear warm-up from lr/warmup_steps to lr").default_value("0").min(0.0);
constexpr frugal_option_decl kTotal =
    int_option("total_steps", "step at which the schedule reaches min_lr, > warmup_steps").required().min(1.0);

constexpr frugal_option_decl kConstant[] = {kLr};
constexpr frugal_option_decl kLinearWarmup[] = {kLr, kWarmup};
constexpr frugal_option_decl kCosine[] = {kLr, kMinLr, kWarmup, kTotal};
constexpr frugal_option_decl kSgdr[] = {
    kLr,
    kMinLr,
    kWarmup,
    int_option("cycle_steps", "length of the first cycle after warm-up").required().min(1.0),
    int_option("cycle_mult", "factor each cycle's length grows by").default_value("1").range(1.0, 1024.0),
    double_option("restart_decay", "factor each restart's peak is multiplied by, in (0, 1]")
        .default_value("1")
        .max(1.0),
    string_option("shape", "decay shape within a cycle").default_value("cosine").choices("cosine|linear"),
};
constexpr frugal_option_decl kWsd[] = {
    kLr,
    kMinLr,
    kWarmup,
    kTotal,
    int_option("decay_steps", "length of the final decay, at most total_steps - warmup_steps (or decay_fraction)")
        .min(1.0),
    double_option("decay_fraction", "share of the post-warm-up steps spent decaying, in (0, 1]; not with decay_steps")
        .default_value("0.2")
        .max(1.0),
    string_option("decay_shape", "shape of the final decay").default_value("linear").choices("linear|cosine|1-sqrt"),
};

}  // namespace

const frugal_strategy_options_ext kConstantOptions = sdk::DeclaredOptions<kConstant>::ext;
const frugal_strategy_options_ext kLinearWarmupOptions = sdk::DeclaredOptions<kLinearWarmup>::ext;
const frugal_strategy_options_ext kCosineOptions = sdk::DeclaredOptions<kCosine>::ext;
const frugal_strategy_options_ext kSgdrOptions = sdk::DeclaredOptions<kSgdr>::ext;
const frugal_strategy_options_ext kWsdOptions = sdk::DeclaredOptions<kWsd>::ext;

}  // namespace frugal::schedule_lr
