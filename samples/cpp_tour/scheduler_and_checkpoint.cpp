// Tour steps 6-7 (samples/README.md), what keeps a run going: the run
// scheduler's decisions and cost ledger over 30 telemetry records, and a
// full checkpoint saved through the fs store and restored into zeroed
// tensors, with a loss scaler's state saved and restored by the engine
// beside them (no container of the host's own in the metadata).
#include <stdlib.h>  // mkdtemp (POSIX)

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "frugal/frugal.h"
#include "frugal/sdk/host.hpp"
#include "tour.hpp"

namespace tour {
namespace {

constexpr int kRecords = 30;
constexpr uint32_t kNodes = 2;
constexpr double kPricePerNodeHour = 1.10;

// Record i (1..30): 30 s of job clock and 10 steps of 2048-token rows per
// record, a slowly falling loss, 2 spot nodes at $1.10 per node-hour.
frugal_telemetry telemetry_record(int i) {
  frugal_telemetry t{};
  t.struct_size = sizeof(t);
  t.nodes = kNodes;
  t.step = 10 * i;
  t.tokens = int64_t{10} * i * 2048;
  t.loss = 4.0 - 0.05 * i;
  t.wall_time_s = 30.0 * i;
  t.price_per_node_hour = kPricePerNodeHour;
  t.resource = FRUGAL_RESOURCE_SPOT;
  return t;
}

// The ledger's checks: money is conserved and matches the price paid.
void check_ledger(const frugal_cost_ledger& ledger) {
  // The first record's interval starts at clock 0: 30 records x 30 s.
  const double expected = 900.0 * kNodes * kPricePerNodeHour / 3600.0;
  const double by_use = ledger.productive_dollars + ledger.stall_dollars + ledger.lost_dollars;
  const double by_capacity = ledger.spot_dollars + ledger.reserved_dollars;
  if (std::abs(ledger.dollars - by_use) > 1e-9)
    throw mismatch("scheduler: ledger dollars %.12f != productive + stall + lost %.12f", ledger.dollars, by_use);
  if (std::abs(ledger.dollars - by_capacity) > 1e-9)
    throw mismatch("scheduler: ledger dollars %.12f != spot + reserved %.12f", ledger.dollars, by_capacity);
  if (std::abs(ledger.dollars - expected) > 1e-9)
    throw mismatch("scheduler: ledger dollars %.12f; 900 s x 2 nodes x $1.10/h is %.12f", ledger.dollars, expected);
}

// A fresh directory under the system's temporary directory ($TMPDIR when
// set), removed with everything in it when this object goes.
class TemporaryDirectory {
 public:
  explicit TemporaryDirectory(std::string_view stem) {
    std::string pattern = (std::filesystem::temp_directory_path() / (std::string(stem) + "-XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr)
      throw std::system_error(errno, std::generic_category(), "cannot create a temporary directory " + pattern);
    path_ = pattern;
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  ~TemporaryDirectory() {
    std::error_code error;
    std::filesystem::remove_all(path_, error);
    if (error) std::fprintf(stderr, "warning: could not remove %s: %s\n", path_.c_str(), error.message().c_str());
  }

  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

constexpr std::size_t kWeights = 1024;
constexpr std::string_view kMetadata = "step=100";

// The training state the checkpoint holds.
struct TrainingState {
  std::array<float, kWeights> weights{};
  std::array<int64_t, 4> cursor{};
};

// Saves step 100 with the metadata and waits until it persisted; returns
// the checkpoint's name.
std::string save(frugal_ckpt_engine* engine) {
  frugal_ckpt_save_args args{};
  args.struct_size = sizeof(args);
  args.kind = FRUGAL_CKPT_FULL;
  args.step = 100;
  args.metadata = kMetadata.data();
  args.metadata_size = kMetadata.size();
  frugal_ckpt_save_result saved{};
  saved.struct_size = sizeof(saved);
  frugal_ckpt_persist_result persisted{};
  persisted.struct_size = sizeof(persisted);
  // The save returns once the state is snapshotted; the persist runs in the
  // background until frugal_ckpt_wait.
  host::check(frugal_ckpt_save(engine, &args, &saved));
  host::check(frugal_ckpt_wait(engine, &persisted));
  if (std::strcmp(saved.name, persisted.name) != 0)
    throw mismatch("checkpoint: saved '%s' but '%s' persisted", saved.name, persisted.name);
  return saved.name;
}

}  // namespace

void scheduler_step(host::Context& context) {
  const host::Options schedule_options = cosine_options();
  host::Options cadence_options;
  cadence_options.set("heartbeat_interval_s", 60.0);
  const std::array<const char*, 1> policies = {"checkpoint_cadence"};
  const std::array<const frugal_options*, 1> policy_options = {cadence_options.get()};
  frugal_scheduler_config config{};
  config.struct_size = sizeof(config);
  config.schedule = "cosine";
  config.schedule_options = schedule_options.get();
  config.policies = policies.data();
  config.policy_options = policy_options.data();
  config.policy_count = policies.size();
  const host::SchedulerPtr scheduler = host::make_scheduler(context.get(), config);
  // The same schedule on its own, to check the scheduler's lr against.
  const host::SchedulePtr schedule = host::make_schedule(context.get(), "cosine", schedule_options.get());

  int heartbeats = 0;
  double last_lr = 0.0;
  for (int i = 1; i <= kRecords; ++i) {
    const frugal_telemetry t = telemetry_record(i);
    frugal_decision decision{};
    decision.struct_size = sizeof(decision);
    host::check(frugal_scheduler_step(scheduler.get(), &t, &decision));
    double want = 0.0;
    host::check(frugal_schedule_lr(schedule.get(), t.step, &want));
    if (decision.lr != want) {
      throw mismatch("scheduler: record %d (step %lld): lr %.17g; the schedule gives %.17g", i,
                     static_cast<long long>(t.step), decision.lr, want);
    }
    if (decision.checkpoint == FRUGAL_CKPT_HEARTBEAT) ++heartbeats;
    last_lr = decision.lr;
  }
  if (heartbeats == 0) throw Mismatch("scheduler: no decision asked for a heartbeat checkpoint");
  frugal_cost_ledger ledger{};
  ledger.struct_size = sizeof(ledger);
  host::check(frugal_scheduler_ledger(scheduler.get(), &ledger));
  check_ledger(ledger);
  std::printf(
      "scheduler: %d records, lr %.6e at step %d, %d heartbeat(s) asked, $%.6f paid = productive %.6f + stall "
      "%.6f + lost %.6f\n",
      kRecords, last_lr, 10 * kRecords, heartbeats, ledger.dollars, ledger.productive_dollars, ledger.stall_dollars,
      ledger.lost_dollars);
}

// Two overflows, then clean steps: the scaler's scale and counters move.
void step_scaler(frugal_loss_scaler* scaler, int steps) {
  for (int i = 0; i < steps; ++i) host::check(frugal_loss_scaler_update(scaler, i < 2 ? 1 : 0, nullptr));
}

frugal_loss_scaler_status scaler_state(const frugal_loss_scaler* scaler) {
  frugal_loss_scaler_status out{};
  out.struct_size = sizeof(out);
  host::check(frugal_loss_scaler_get_status(scaler, &out));
  return out;
}

void checkpoint_step(host::Context& context) {
  // Declared first so that it is removed last, after the engine and the
  // store let go of it.
  const TemporaryDirectory directory("frugal-cpp-tour");
  // Registered with the engine below, so it must outlive it: declared before.
  const host::LossScalerPtr scaler = host::make_loss_scaler(nullptr);
  step_scaler(scaler.get(), 3);
  const frugal_loss_scaler_status saved_scaler = scaler_state(scaler.get());

  TrainingState state;
  Lcg rng(17);
  for (auto& w : state.weights) w = rng.uniform();
  state.cursor = {1, 2, 3, 4};
  const TrainingState expected = state;

  host::Options store_options;
  store_options.set("root", directory.path());
  const host::StorePtr store = host::make_store(context.get(), "fs", store_options.get());
  const host::CkptEnginePtr engine = host::make_ckpt_engine(store.get(), nullptr);
  const HostTensor weights(state.weights.data(), FRUGAL_DTYPE_FLOAT32, {static_cast<int64_t>(kWeights)});
  const HostTensor cursor(state.cursor.data(), FRUGAL_DTYPE_INT64, {static_cast<int64_t>(state.cursor.size())});
  host::check(frugal_ckpt_register(engine.get(), "weights", weights.get(), 0));
  host::check(frugal_ckpt_register(engine.get(), "cursor", cursor.get(), 0));
  // The scaler's state travels in the checkpoint: no container of our own.
  host::check(frugal_ckpt_register_loss_scaler(engine.get(), "loss_scaler", scaler.get(), 0));
  const std::string saved_name = save(engine.get());

  // Lose the state and move the scaler on, then bring the newest
  // checkpoint back into both.
  state = TrainingState{};
  step_scaler(scaler.get(), 5);
  std::array<char, 64> metadata{};
  size_t metadata_size = 0;
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_restore(engine.get(), nullptr, FRUGAL_CKPT_ALL_KINDS, metadata.data(), metadata.size(),
                                  &metadata_size, &info));
  if (saved_name != info.name)
    throw mismatch("checkpoint: restored '%s'; the save named '%s'", info.name, saved_name.c_str());
  if (info.step != 100)
    throw mismatch("checkpoint: restored step %llu, not 100", static_cast<unsigned long long>(info.step));
  // Byte for byte, not by value: a restore must give back the exact bits.
  if (std::memcmp(state.weights.data(), expected.weights.data(), sizeof(state.weights)) != 0)
    throw Mismatch("checkpoint: the restored weights differ from the saved ones");
  if (std::memcmp(state.cursor.data(), expected.cursor.data(), sizeof(state.cursor)) != 0)
    throw Mismatch("checkpoint: the restored cursor differs from {1, 2, 3, 4}");
  const std::string_view restored_metadata(metadata.data(), metadata_size);
  if (restored_metadata != kMetadata) {
    throw Mismatch("checkpoint: the restored metadata is \"" + std::string(restored_metadata) + "\", not \"" +
                   std::string(kMetadata) + "\"");
  }
  if (info.not_restored_count != 0)
    throw mismatch("checkpoint: %u registered items were not restored", static_cast<unsigned>(info.not_restored_count));
  const frugal_loss_scaler_status restored = scaler_state(scaler.get());
  if (restored.scale != saved_scaler.scale || restored.clean_steps != saved_scaler.clean_steps ||
      restored.skipped_steps != saved_scaler.skipped_steps)
    throw mismatch("checkpoint: the loss scaler came back as scale %g, %lld clean, %lld skipped; saved %g, %lld, %lld",
                   restored.scale, static_cast<long long>(restored.clean_steps),
                   static_cast<long long>(restored.skipped_steps), saved_scaler.scale,
                   static_cast<long long>(saved_scaler.clean_steps),
                   static_cast<long long>(saved_scaler.skipped_steps));
  std::printf("checkpoint: saved and restored %s: step %llu, %zu tensor bytes back, metadata \"%s\", loss scale %g\n",
              info.name, static_cast<unsigned long long>(info.step), sizeof(state.weights) + sizeof(state.cursor),
              std::string(restored_metadata).c_str(), restored.scale);
}

}  // namespace tour
