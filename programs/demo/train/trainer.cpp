#include "trainer.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adamw.hpp"
#include "batch_source.hpp"
#include "corpus.hpp"
#include "fp8_fake_quant.hpp"
#include "frugal/frugal.h"
#include "frugal/sdk/host.hpp"
#include "job_clock.hpp"
#include "metrics_writer.hpp"
#include "model.hpp"
#include "previous_losses.hpp"
#include "router_selector.hpp"
#include "run_checkpoints.hpp"
#include "run_plan.hpp"
#include "run_scheduler.hpp"
#include "tensor_math.hpp"
#include "train_progress.hpp"

namespace frugal_demo {
namespace {

const char* checkpoint_kind_name(std::int32_t kind) {
  return kind == FRUGAL_CKPT_FULL ? "full" : kind == FRUGAL_CKPT_HEARTBEAT ? "heartbeat" : "";
}

const char* resource_name(std::int32_t resource) { return resource == FRUGAL_RESOURCE_SPOT ? "spot" : "reserved"; }

// A context with the built-in plugins (found next to libfrugal) loaded.
frugal::host::Context context_with_plugins() {
  frugal::host::Context context;
  context.discover();
  return context;
}

class Trainer {
 public:
  Trainer(const DemoOptions& options, RunPlan plan);
  int run();

 private:
  void write_plan();
  void resume_if_possible();
  void train_one_step();
  void evaluate();
  std::int32_t checkpoint_after_step(const Decision& decision);
  void register_states();
  [[nodiscard]] TrainProgress progress() const;
  frugal_telemetry telemetry(double now, double notice_s);
  int stop_for_preemption();
  int finish();
  [[nodiscard]] double price() const {
    return resource_ == FRUGAL_RESOURCE_SPOT ? plan_.spot_price : plan_.reserved_price;
  }

  RunPlan plan_;
  int attempt_;
  std::filesystem::path dir_;
  JobClock clock_;
  MetricsWriter metrics_;
  frugal::host::Context context_;
  Corpus corpus_;
  std::unique_ptr<BatchSource> source_;
  Batch eval_batch_;
  Model<float> model_;
  std::optional<PluginRouter> router_;
  std::optional<Fp8QuantHooks> quant_;
  AdamW<float> optimizer_;
  RunScheduler scheduler_;
  RunCheckpoints checkpoints_;

  std::int64_t step_ = 0;    // optimizer steps done
  std::int64_t tokens_ = 0;  // real tokens trained
  double last_loss_ = 0;
  std::int32_t resource_;
  bool restarted_ = false;                           // the next telemetry is the first after a resume
  std::int32_t done_checkpoint_ = FRUGAL_CKPT_NONE;  // saved since the last record
  double done_stall_job_s_ = 0;
  double last_record_s_ = 0;
  std::int64_t restored_step_ = 0;
  std::map<std::int64_t, double> replay_losses_;    // what earlier attempts logged
  std::optional<TrainProgress> restored_progress_;  // set by a restore's import of "train/progress"
  std::optional<double> last_eval_;
};

Trainer::Trainer(const DemoOptions& options, RunPlan plan)
    : plan_(std::move(plan)),
      attempt_(options.attempt),
      dir_(options.out / plan_.name),
      clock_(JobClock::open_or_start(dir_ / "start.txt", plan_.time_scale)),
      metrics_(dir_, attempt_),
      context_(context_with_plugins()),
      corpus_(load_corpus(plan_.corpus, plan_.seq)),
      source_(plan_.packed ? make_packed_source(context_.get(), corpus_, plan_.rows, plan_.seq, plan_.seed)
                           : make_padded_source(corpus_, plan_.rows, plan_.seq, plan_.seed)),
      eval_batch_(make_eval_batch(corpus_, plan_.eval_rows, plan_.seq)),
      model_(plan_.model),
      optimizer_(model_.parameters(), model_.gradients(), plan_.adamw, model_.parameter_set().decay_mask()),
      scheduler_(context_.get(), plan_),
      checkpoints_(context_.get(), dir_ / "store", model_.parameters(), optimizer_.state()),
      resource_(plan_.starts_on_spot ? FRUGAL_RESOURCE_SPOT : FRUGAL_RESOURCE_RESERVED) {
  set_num_threads(plan_.threads);
  if (plan_.model.moe) {
    router_.emplace(context_.get(), plan_.model.moe_options, plan_.model.layers);
    model_.set_selector(router_->selector());
  }
  if (plan_.fp8) quant_.emplace(context_.get(), model_);
  register_states();
  frugal::host::check(frugal_preemption_install_sigterm());
}

// Everything besides the two tensors a resumed attempt needs, each a state
// the engine saves with the tensors and restores in this order: the
// routers and quantizers (their strategy states), the scheduler (ledger,
// schedule and policy states), the data cursor, and the trainer's counters.
void Trainer::register_states() {
  if (router_)
    for (std::size_t l = 0; l < router_->layers(); ++l)
      checkpoints_.register_router("router/" + PluginRouter::layer_name(l), router_->router(l));
  if (quant_) {
    const auto names = quant_->names();
    for (std::size_t i = 0; i < names.size(); ++i)
      checkpoints_.register_quantizer("fp8/" + names[i], quant_->quantizer(i));
  }
  checkpoints_.register_scheduler("run/scheduler", scheduler_.get());
  checkpoints_.register_state("data/cursor", {[this] { return source_->cursor(); },
                                              [this](std::span<const std::uint8_t> bytes) { source_->seek(bytes); }});
  checkpoints_.register_state("train/progress", {[this] { return encode_train_progress(progress()); },
                                                 [this](std::span<const std::uint8_t> bytes) {
                                                   restored_progress_ = decode_train_progress(bytes);
                                                 }});
}

void Trainer::write_plan() {
  for (const auto& [key, value] : plan_.describe()) metrics_.run_info(key, value);
  metrics_.run_info("corpus_source", corpus_.source);
  metrics_.run_info("batches", source_->describe());
  metrics_.run_info("parameters", std::to_string(model_.parameters().size()));
  if (quant_) metrics_.run_info("fp8_hooked_tensors", std::to_string(quant_->hooked()));
}

void Trainer::resume_if_possible() {
  restored_progress_.reset();
  const auto restored = checkpoints_.restore_latest();
  if (!restored) return;
  // The engine imported every registered state; the counters are applied here.
  const TrainProgress meta = restored_progress_.value();
  optimizer_.set_steps(meta.adam_steps);
  step_ = static_cast<std::int64_t>(meta.step);
  tokens_ = meta.tokens;
  last_loss_ = meta.last_loss;
  restarted_ = true;
  restored_step_ = step_;
  // The job comes back on the capacity its scheduler had chosen by then.
  resource_ = meta.resource;
  last_record_s_ = scheduler_.ledger().wall_s;
  replay_losses_ = previous_losses(dir_, attempt_, step_);
  metrics_.event(clock_.now_s(), "resume", step_, restored->name);
  std::printf("  %-8s attempt %d resumes from checkpoint %s at step %lld%s\n", plan_.name.c_str(), attempt_,
              restored->name.c_str(), static_cast<long long>(step_),
              restored->emergency ? " (emergency heartbeat)" : "");
}

frugal_telemetry Trainer::telemetry(double now, double notice_s) {
  frugal_telemetry t{};
  t.struct_size = sizeof(t);
  t.flags = restarted_ ? FRUGAL_TELEMETRY_RESTARTED : 0u;
  t.nodes = plan_.nodes;
  t.step = step_;
  t.tokens = tokens_;
  t.loss = last_loss_;
  if (last_eval_) {
    t.flags |= FRUGAL_TELEMETRY_EVAL_LOSS;
    t.eval_loss = *last_eval_;
  }
  t.wall_time_s = std::max(now, last_record_s_);
  t.price_per_node_hour = price();
  t.resource = resource_;
  if (!restarted_) {
    t.checkpoint_done = done_checkpoint_;
    // The stall happened inside this interval; the clamp only guards
    // against the two clocks' rounding.
    t.checkpoint_stall_s = std::min(done_stall_job_s_, t.wall_time_s - last_record_s_);
  }
  t.preemption_notice_s = notice_s;
  last_record_s_ = t.wall_time_s;
  restarted_ = false;
  done_checkpoint_ = FRUGAL_CKPT_NONE;
  done_stall_job_s_ = 0;
  last_eval_.reset();
  return t;
}

TrainProgress Trainer::progress() const {
  TrainProgress p;
  p.step = static_cast<std::uint64_t>(step_);
  p.adam_steps = optimizer_.steps();
  p.tokens = tokens_;
  p.last_loss = last_loss_;
  p.resource = resource_;
  return p;
}

void Trainer::train_one_step() {
  BatchAccounting accounting;
  const Batch batch = source_->next(&accounting);
  // The loss as float (what the model computes in): its text in steps.csv
  // round-trips, so a replayed step's loss compares for exact equality.
  const float loss = model_.forward_backward(batch);
  const double aux_loss = model_.stats().aux_loss;
  last_loss_ = loss;
  tokens_ += static_cast<std::int64_t>(accounting.real_tokens);
  const std::int32_t resource = resource_;
  const Decision decision = scheduler_.step(telemetry(clock_.now_s(), 0.0));
  optimizer_.step(decision.lr);
  ++step_;

  if (const auto it = replay_losses_.find(step_); it != replay_losses_.end())
    metrics_.resume(restored_step_, step_, it->second, static_cast<double>(loss));
  if (step_ % plan_.eval_every_steps == 0) evaluate();

  const std::int32_t saved = checkpoint_after_step(decision);
  StepRecord record;
  record.step = step_;
  record.clock_s = clock_.now_s();
  record.real_tokens = static_cast<std::int64_t>(accounting.real_tokens);
  record.slots = static_cast<std::int64_t>(accounting.slots);
  record.loss = loss;
  record.aux_loss = aux_loss;
  record.lr = decision.lr;
  record.resource = resource_name(resource);
  record.price_per_node_hour = price();
  record.nodes = static_cast<int>(plan_.nodes);
  record.dollars = scheduler_.ledger().dollars;
  record.checkpoint = checkpoint_kind_name(saved);
  record.stall_s = saved != FRUGAL_CKPT_NONE ? done_stall_job_s_ : 0.0;
  metrics_.step(record);

  if (plan_.policies && decision.resource != FRUGAL_RESOURCE_UNSPECIFIED && decision.resource != resource_) {
    resource_ = decision.resource;
    std::printf("  %-8s step %lld: moves to %s capacity (%s)\n", plan_.name.c_str(), static_cast<long long>(step_),
                resource_name(resource_), decision.reason.c_str());
  }
}

void Trainer::evaluate() {
  // Evaluation must not move the quantizers' amax histories: the eval
  // batch is not training data.
  if (quant_) quant_->set_frozen(true);
  const StepStats& stats = model_.forward(eval_batch_);
  if (quant_) quant_->set_frozen(false);
  last_eval_ = stats.loss;
  const double now = clock_.now_s();
  metrics_.eval(step_, now, stats.loss);
  for (std::size_t layer = 0; layer < stats.expert_loads.size(); ++layer)
    for (std::size_t expert = 0; expert < stats.expert_loads[layer].size(); ++expert)
      metrics_.expert_load(step_, static_cast<int>(layer), static_cast<int>(expert),
                           static_cast<double>(stats.expert_loads[layer][expert]));
  std::printf("  %-8s step %5lld  job clock %6.1f min  loss %.3f  eval %.3f  %-8s $%.2f\n", plan_.name.c_str(),
              static_cast<long long>(step_), now / 60.0, last_loss_, stats.loss, resource_name(resource_),
              scheduler_.ledger().dollars);
  std::fflush(stdout);
}

std::int32_t Trainer::checkpoint_after_step(const Decision& decision) {
  // The baseline: a full checkpoint every N steps, training waits for the
  // write. The frugal plan: what checkpoint_cadence decided, snapshotted
  // and written in the background.
  std::int32_t kind = FRUGAL_CKPT_NONE;
  if (!plan_.policies && step_ % plan_.full_every_steps == 0) kind = FRUGAL_CKPT_FULL;
  if (plan_.policies) kind = decision.checkpoint;
  if (kind == FRUGAL_CKPT_NONE) return kind;
  const SaveOutcome saved = checkpoints_.save(kind, static_cast<std::uint64_t>(step_), !plan_.policies);
  done_checkpoint_ = kind;
  done_stall_job_s_ = saved.stall_s * plan_.time_scale;
  metrics_.event(clock_.now_s(), "checkpoint", step_, saved.name);
  return kind;
}

int Trainer::stop_for_preemption() {
  // The notice goes to the scheduler first (it books it and asks for at
  // least a heartbeat), then the emergency heartbeat carries its state.
  const double notice_job_s = plan_.grace_s * plan_.time_scale;
  (void)scheduler_.step(telemetry(clock_.now_s(), notice_job_s));
  const auto saved = checkpoints_.emergency_save(static_cast<std::uint64_t>(step_), plan_.emergency_deadline_s);
  metrics_.event(clock_.now_s(), "emergency_save", step_,
                 saved.name + (saved.committed ? "" : " (missed the deadline)"));
  std::printf("  %-8s preemption notice at step %lld: emergency heartbeat %s %s in %.2f s\n", plan_.name.c_str(),
              static_cast<long long>(step_), saved.name.c_str(), saved.committed ? "committed" : "NOT committed",
              saved.seconds);
  std::fflush(stdout);
  return kPreemptedExitCode;
}

int Trainer::finish() {
  checkpoints_.wait();
  const SaveOutcome saved = checkpoints_.save(FRUGAL_CKPT_FULL, static_cast<std::uint64_t>(step_), true);
  done_checkpoint_ = FRUGAL_CKPT_FULL;
  done_stall_job_s_ = saved.stall_s * plan_.time_scale;
  metrics_.event(clock_.now_s(), "checkpoint", step_, saved.name);
  // A last record books the time up to now and the final checkpoint.
  (void)scheduler_.step(telemetry(clock_.now_s(), 0.0));
  const frugal_cost_ledger l = scheduler_.ledger();
  metrics_.ledger(LedgerTotals{l.dollars, l.spot_dollars, l.reserved_dollars, l.productive_dollars, l.stall_dollars,
                               l.lost_dollars, l.wall_s, l.productive_s, l.stall_s, l.lost_s, l.restarts,
                               l.checkpoints_full, l.checkpoints_heartbeat},
                  {{"gpu_hours", l.gpu_hours}, {"tokens", static_cast<double>(tokens_)}});
  metrics_.event(clock_.now_s(), "finish", step_, "budget spent");
  std::printf("  %-8s done: %lld steps, %.0f job-minutes, $%.2f\n", plan_.name.c_str(), static_cast<long long>(step_),
              l.wall_s / 60.0, l.dollars);
  std::fflush(stdout);
  return 0;
}

int Trainer::run() {
  if (attempt_ == 0) write_plan();
  metrics_.event(clock_.now_s(), "start", step_, plan_.name + " attempt " + std::to_string(attempt_));
  resume_if_possible();
  while (true) {
    if (frugal_preemption_pending() != 0) return stop_for_preemption();
    if (clock_.real_elapsed_s() >= plan_.budget_s) return finish();
    train_one_step();
  }
}

}  // namespace

int run_worker(const DemoOptions& options) {
  Trainer trainer(options, plan_named(options.worker, options));
  return trainer.run();
}

}  // namespace frugal_demo
