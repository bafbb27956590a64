#include "run_plan.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "corpus.hpp"

namespace frugal_demo {
namespace {

// Per-run wall-clock budgets. Quick: both runs and the report in well
// under a minute on two cores. Full: both runs and the report in under
// ten minutes, with room for a slower machine.
constexpr double kQuickBudgetS = 18;
constexpr double kFullBudgetS = 200;
// A cosine schedule needs its length in steps, and the runs are bounded in
// time: the length comes from the budget at a nominal rate, so it is a
// function of the options alone (every attempt computes the same
// schedule) and runs that are faster or slower simply end further along
// or short of the decay.
constexpr double kNominalStepsPerSecond = 12;

std::string fixed(double value, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

RunPlan common_plan(const DemoOptions& options) {
  RunPlan plan;
  plan.seed = options.seed;
  plan.corpus = options.corpus.empty() ? default_corpus_paths() : options.corpus;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  plan.threads = options.threads > 0 ? options.threads : static_cast<int>(std::min(2u, cores));
  plan.budget_s = options.budget_s.value_or(options.quick ? kQuickBudgetS : kFullBudgetS);

  plan.model.vocab = 256;
  plan.model.d_model = 64;
  plan.model.heads = 4;
  plan.model.layers = 2;
  plan.model.max_seq = plan.seq;
  plan.model.seed = options.seed;
  plan.adamw.weight_decay = 0.01;
  plan.adamw.clip_norm = 1.0;

  plan.total_steps = std::max<std::int64_t>(50, std::llround(plan.budget_s * kNominalStepsPerSecond));
  plan.warmup_steps = std::max<std::int64_t>(5, plan.total_steps / 20);
  plan.full_every_steps = options.quick ? 25 : 100;
  plan.eval_every_steps = options.quick ? 10 : 25;
  plan.downtime_s = options.quick ? 1.0 : 5;
  return plan;
}

}  // namespace

RunPlan baseline_plan(const DemoOptions& options) {
  RunPlan plan = common_plan(options);
  plan.name = "baseline";
  plan.packed = false;
  plan.fp8 = false;
  plan.model.moe = false;
  // Dense FFN as wide as the k experts a MoE token runs through, so both
  // plans spend the same FLOPs per token.
  const MoeOptions moe;
  plan.model.ffn_hidden = 128 * moe.top_k;
  plan.starts_on_spot = false;
  plan.policies = false;
  return plan;
}

RunPlan frugal_plan(const DemoOptions& options) {
  RunPlan plan = common_plan(options);
  plan.name = "frugal";
  plan.packed = true;
  plan.fp8 = true;
  plan.model.moe = true;
  plan.model.ffn_hidden = 128;
  plan.model.moe_options.experts = 4;
  plan.model.moe_options.top_k = 2;
  plan.starts_on_spot = true;
  plan.policies = true;
  // A heartbeat about every 2.5 % of the run: the most a hard kill can take.
  plan.heartbeat_every_job_s = plan.budget_job_s() / 40;
  // spot_phase may leave spot once the loss descends steadily, but not in
  // the first half: the demo's preemptions land there, and a run that left
  // spot before them would show none.
  plan.min_spot_job_s = 0.5 * plan.budget_job_s();
  if (options.preempt) {
    plan.preemptions = {{0.22 * plan.budget_job_s(), true}, {0.42 * plan.budget_job_s(), false}};
  }
  return plan;
}

RunPlan plan_named(const std::string& name, const DemoOptions& options) {
  if (name == "baseline") return baseline_plan(options);
  if (name == "frugal") return frugal_plan(options);
  throw std::invalid_argument("no run plan is called '" + name + "' (baseline or frugal)");
}

std::vector<std::pair<std::string, std::string>> RunPlan::describe() const {
  std::string corpus_text;
  for (const auto& path : corpus) corpus_text += (corpus_text.empty() ? "" : " ") + path.string();
  const std::string ffn = model.moe ? "moe " + std::to_string(model.moe_options.experts) + " experts top-" +
                                          std::to_string(model.moe_options.top_k) + " hidden " +
                                          std::to_string(model.ffn_hidden)
                                    : "dense hidden " + std::to_string(model.ffn_hidden);
  return {
      {"plan", name},
      {"batching", packed ? "packed (packer_seq)" : "padded"},
      {"rows", std::to_string(rows)},
      {"seq", std::to_string(seq)},
      {"ffn", ffn},
      {"precision", fp8 ? "fp8 fake-quant (quant_fp8; delayed scaling)" : "fp32"},
      {"model", "d_model " + std::to_string(model.d_model) + " heads " + std::to_string(model.heads) + " layers " +
                    std::to_string(model.layers)},
      {"lr", "cosine lr " + fixed(lr, 4) + " min " + fixed(min_lr, 5) + " warmup " + std::to_string(warmup_steps) +
                 " total " + std::to_string(total_steps)},
      {"checkpoints", policies ? "checkpoint_cadence: heartbeat every " + fixed(heartbeat_every_job_s, 0) +
                                     " job-s (async), full every " + std::to_string(full_every_steps) + " steps"
                               : "full every " + std::to_string(full_every_steps) + " steps (blocking)"},
      {"capacity",
       policies ? "spot_phase: spot first, reserved when the loss descends steadily or preemptions spike" : "reserved"},
      {"nodes", std::to_string(nodes)},
      {"reserved_price", fixed(reserved_price, 2)},
      {"spot_price", fixed(spot_price, 2)},
      {"time_scale", fixed(time_scale, 0)},
      {"budget_s", fixed(budget_s, 1)},
      {"threads", std::to_string(threads)},
      {"seed", std::to_string(seed)},
      {"preemptions", std::to_string(preemptions.size())},
      {"corpus", corpus_text},
  };
}

}  // namespace frugal_demo
