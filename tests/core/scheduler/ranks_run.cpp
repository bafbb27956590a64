#include "ranks_run.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <utility>

namespace frugal::test::ranks {
namespace {

std::string builtin_path(const std::string& name) {
  std::string path = FRUGAL_BUILTIN_PLUGIN_DIR;
  path += '/';
  path += name;
  path += ".so";
  return path;
}

// A repeatable value in [0, 1) for (record, rank, salt): a 64-bit mix, so
// the run needs no generator state.
double jitter(int record, int rank, int salt) {
  uint64_t x = (static_cast<uint64_t>(record) << 32) ^ (static_cast<uint64_t>(rank) << 16) ^
               static_cast<uint64_t>(salt) ^ 0x9E3779B97F4A7C15ull;
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDull;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ull;
  x ^= x >> 33;
  return static_cast<double>(x >> 11) / 9007199254740992.0;
}

void hex(std::string& out, uint64_t v) {
  char buffer[20];
  std::snprintf(buffer, sizeof(buffer), "%016llx ", static_cast<unsigned long long>(v));
  out += buffer;
}

void hex(std::string& out, double v) { hex(out, std::bit_cast<uint64_t>(v)); }

}  // namespace

frugal_telemetry rank_record(int record, int rank, int size, bool notice) {
  (void)size;
  frugal_telemetry t{};
  t.struct_size = sizeof(t);
  const bool restarted = record >= kRestartRecord;
  // Resumed from the step-100 checkpoint: the steps after the restart
  // repeat 100, 101, ...
  t.step = restarted ? 100 + (record - kRestartRecord) : record;
  if (record == kRestartRecord) t.flags |= FRUGAL_TELEMETRY_RESTARTED;
  // Each rank trains its own share: rank r 4096 + 512 r tokens a step.
  t.tokens = (t.step + 1) * (4096 + 512 * rank);
  // No loss for the first two records on any rank; odd ranks skip some.
  if (record < 2 || (rank % 2 == 1 && record % 7 == 3)) {
    t.flags |= FRUGAL_TELEMETRY_NO_LOSS;
    t.loss = std::nan("");
  } else {
    t.loss = 0.5 + 2.5 * std::exp(-static_cast<double>(t.step) / 60.0) + 0.03 * rank +
             0.02 * (jitter(record, rank, 1) - 0.5);
  }
  // Even ranks evaluate every 25 records; the evaluation flattens late.
  if (rank % 2 == 0 && record % 25 == 24) {
    t.flags |= FRUGAL_TELEMETRY_EVAL_LOSS;
    t.eval_loss = 0.7 + 2.0 * std::exp(-std::min(static_cast<double>(t.step), 110.0) / 40.0) + 0.01 * rank +
                  0.002 * jitter(record, rank, 2);
  }
  // One clock per rank, each a little off; 10 minutes down at the restart.
  t.wall_time_s = 60.0 * record + (restarted ? 600.0 : 0.0) + 0.25 * rank + 0.2 * jitter(record, rank, 3);
  // The capacity: rank 0 reads it; the other ranks pass values of their own,
  // which the job record ignores.
  t.nodes = rank == 0 ? 4u : 4u + static_cast<uint32_t>(rank);
  t.price_per_node_hour = rank == 0 ? 2.0 + 0.6 * std::sin(record / 9.0) : 100.0 + rank;
  t.resource = FRUGAL_RESOURCE_SPOT;
  // The full checkpoints the cadence asks for at steps 50, 100, 150 are
  // reported done at the next record (each rank its own stall); the
  // emergency heartbeat asked at the notice, at the record after it.
  if (t.step >= 50 && t.step % 50 == 1) {
    t.checkpoint_done = FRUGAL_CKPT_FULL;
    t.checkpoint_stall_s = 3.0 + 0.5 * rank + jitter(record, rank, 4);
  } else if (notice && record == kNoticeRecord + 1) {
    t.checkpoint_done = FRUGAL_CKPT_HEARTBEAT;
    t.checkpoint_stall_s = 1.0 + 0.1 * rank;
  }
  if (notice && rank == kNoticeRank && record >= kNoticeRecord && record < kRestartRecord)
    t.preemption_notice_s = 30.0 - 5.0 * (record - kNoticeRecord);
  return t;
}

std::vector<frugal_telemetry> all_ranks(int record, int size, bool notice) {
  std::vector<frugal_telemetry> out;
  out.reserve(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) out.push_back(rank_record(record, r, size, notice));
  return out;
}

frugal_telemetry job_record(const std::vector<frugal_telemetry>& ranks, double previous_wall) {
  frugal_telemetry job{};
  job.struct_size = sizeof(job);
  job.step = ranks[0].step;
  job.nodes = ranks[0].nodes;
  job.price_per_node_hour = ranks[0].price_per_node_hour;
  job.resource = ranks[0].resource;
  job.wall_time_s = ranks[0].wall_time_s;
  int64_t loss_tokens = 0;
  int with_loss = 0;
  int with_eval = 0;
  for (const frugal_telemetry& t : ranks) {
    job.tokens += t.tokens;
    if ((t.flags & FRUGAL_TELEMETRY_RESTARTED) != 0) job.flags |= FRUGAL_TELEMETRY_RESTARTED;
    if ((t.flags & FRUGAL_TELEMETRY_NO_LOSS) == 0) {
      loss_tokens += t.tokens;
      ++with_loss;
    }
    if ((t.flags & FRUGAL_TELEMETRY_EVAL_LOSS) != 0) ++with_eval;
    job.wall_time_s = std::max(job.wall_time_s, t.wall_time_s);
    job.checkpoint_done = std::max(job.checkpoint_done, t.checkpoint_done);
    job.checkpoint_stall_s = std::max(job.checkpoint_stall_s, t.checkpoint_stall_s);
    if (t.preemption_notice_s > 0 && (job.preemption_notice_s == 0 || t.preemption_notice_s < job.preemption_notice_s))
      job.preemption_notice_s = t.preemption_notice_s;
  }
  // share x value, summed in rank order from the first term.
  bool first_loss = true;
  bool first_eval = true;
  for (const frugal_telemetry& t : ranks) {
    if ((t.flags & FRUGAL_TELEMETRY_NO_LOSS) == 0) {
      const double share =
          loss_tokens > 0 ? static_cast<double>(t.tokens) / static_cast<double>(loss_tokens) : 1.0 / with_loss;
      job.loss = first_loss ? share * t.loss : job.loss + share * t.loss;
      first_loss = false;
    }
    if ((t.flags & FRUGAL_TELEMETRY_EVAL_LOSS) != 0) {
      const double share = 1.0 / with_eval;
      job.eval_loss = first_eval ? share * t.eval_loss : job.eval_loss + share * t.eval_loss;
      first_eval = false;
    }
  }
  if (with_loss == 0) job.flags |= FRUGAL_TELEMETRY_NO_LOSS;
  if (with_eval > 0) job.flags |= FRUGAL_TELEMETRY_EVAL_LOSS;
  const double interval = job.wall_time_s - previous_wall;
  if (ranks.size() > 1) job.checkpoint_stall_s = std::min(job.checkpoint_stall_s, interval + 1e-3 + 1e-6 * interval);
  return job;
}

host::ContextPtr make_context(const std::string& comm_plugin) {
  auto context = host::make_context();
  for (const char* name : {"policy_cost", "schedule_lr"})
    host::check(frugal_context_load_plugin(context.get(), builtin_path(name).c_str()));
  if (!comm_plugin.empty()) host::check(frugal_context_load_plugin(context.get(), builtin_path(comm_plugin).c_str()));
  return context;
}

frugal_error* create_scheduler(frugal_context* context, frugal_comm* comm, host::SchedulerPtr& out,
                               const std::vector<std::string>& policies, bool bad_option) {
  using Options = std::vector<std::pair<const char*, const char*>>;
  const std::vector<std::pair<std::string, Options>> all = {
      {"checkpoint_cadence", {{"full_interval_steps", "50"}}},
      {"spot_phase", {{"window", "10"}, {"reserved_price", "3"}, {"cooldown_s", "600"}}},
      {"plateau_autoscaler", {{"max_nodes", "16"}, {"window_s", "1200"}, {"cooldown_s", "1200"}}},
      {"early_stop", {{"metric", "eval"}, {"patience", "2"}}}};
  std::vector<std::string> names = policies;
  if (names.empty())
    for (const auto& p : all) names.push_back(p.first);
  std::vector<host::OptionsPtr> owned;
  std::vector<const char*> name_ptrs;
  std::vector<const frugal_options*> option_ptrs;
  for (const std::string& name : names) {
    owned.push_back(host::make_options());
    for (const auto& p : all)
      if (p.first == name)
        for (const auto& [option, text] : p.second)
          host::check(frugal_options_set_parsed(owned.back().get(), option, text));
    if (bad_option) host::check(frugal_options_set_parsed(owned.back().get(), "no_such_option", "1"));
    name_ptrs.push_back(name.c_str());
    option_ptrs.push_back(owned.back().get());
  }
  auto schedule = host::make_options();
  for (const auto& [option, text] :
       {std::pair{"lr", "3e-4"}, {"min_lr", "3e-5"}, {"warmup_steps", "10"}, {"total_steps", "300"}})
    host::check(frugal_options_set_parsed(schedule.get(), option, text));
  frugal_scheduler_config config{};
  config.struct_size = sizeof(config);
  config.schedule = "cosine";
  config.schedule_options = schedule.get();
  config.policies = name_ptrs.data();
  config.policy_options = option_ptrs.data();
  config.policy_count = name_ptrs.size();
  config.gpus_per_node = 8;
  config.comm = comm;
  frugal_scheduler* scheduler = nullptr;
  frugal_error* error = frugal_scheduler_create(context, &config, &scheduler);
  out.reset(scheduler);
  return error;
}

std::string transcript_line(const frugal_decision& d, const frugal_cost_ledger& l) {
  std::string out;
  hex(out, d.lr);
  hex(out, static_cast<uint64_t>(static_cast<uint32_t>(d.checkpoint)));
  hex(out, static_cast<uint64_t>(static_cast<uint32_t>(d.resource)));
  hex(out, static_cast<uint64_t>(d.target_nodes));
  hex(out, static_cast<uint64_t>(static_cast<uint32_t>(d.stop)));
  hex(out, d.next_due_s);
  for (double v :
       {l.dollars, l.spot_dollars, l.reserved_dollars, l.productive_dollars, l.stall_dollars, l.lost_dollars,
        l.gpu_hours, l.wall_s, l.productive_s, l.stall_s, l.lost_s, l.loss_first, l.loss_best, l.dollars_per_loss})
    hex(out, v);
  for (int64_t v : {l.restarts, l.checkpoints_full, l.checkpoints_heartbeat}) hex(out, static_cast<uint64_t>(v));
  out += d.reason != nullptr ? d.reason : "(null)";
  out += '\n';
  return out;
}

StepResult step(frugal_scheduler* scheduler, const frugal_telemetry& t, std::string* transcript) {
  StepResult result;
  result.decision.struct_size = sizeof(result.decision);
  frugal_error* error = frugal_scheduler_step(scheduler, &t, &result.decision);
  result.code = frugal_error_code(error);
  result.message = error != nullptr ? frugal_error_message(error) : "";
  frugal_error_destroy(error);
  if (result.code == 0) {
    result.reason = result.decision.reason;
    if (transcript != nullptr) *transcript += transcript_line(result.decision, ledger_of(scheduler));
  }
  return result;
}

frugal_cost_ledger ledger_of(const frugal_scheduler* scheduler) {
  frugal_cost_ledger l{};
  l.struct_size = sizeof(l);
  host::check(frugal_scheduler_ledger(scheduler, &l));
  return l;
}

std::vector<std::byte> export_state(frugal_scheduler* scheduler) {
  size_t size = 0;
  host::check(frugal_scheduler_export_state(scheduler, nullptr, 0, &size));
  std::vector<std::byte> blob(size);
  host::check(frugal_scheduler_export_state(scheduler, blob.data(), blob.size(), &size));
  return blob;
}

Reference reference_run(frugal_context* context, int size, bool notice) {
  host::SchedulerPtr scheduler;
  host::check(create_scheduler(context, nullptr, scheduler));
  Reference out;
  double previous_wall = 0;
  for (int i = 0; i < kRecords; ++i) {
    const frugal_telemetry job = job_record(all_ranks(i, size, notice), previous_wall);
    previous_wall = job.wall_time_s;
    std::string line;
    const StepResult r = step(scheduler.get(), job, &line);
    if (r.code != 0) {
      // The recorded run is valid telemetry: a refusal here is a broken test.
      std::fprintf(stderr, "reference run, record %d: %s\n", i, r.message.c_str());
      line = "refused: " + r.message + "\n";
    }
    out.lines.push_back(line);
    out.transcript += line;
  }
  out.state = export_state(scheduler.get());
  return out;
}

}  // namespace frugal::test::ranks
