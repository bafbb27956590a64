// The synthetic runs: steps, evals, events, experts, resume rows, ledger.
#include "synthetic_runs.hpp"

#include <stdlib.h>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "metrics_writer.hpp"

namespace demo_report_test {

using frugal_demo::LedgerTotals;
using frugal_demo::MetricsWriter;
using frugal_demo::StepRecord;

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "demo_report_XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot make a temporary directory");
  path_ = pattern;
}

std::string file_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

namespace {

StepRecord step(std::int64_t n, double clock, std::int64_t real, std::int64_t slots, double loss, const char* resource,
                double dollars, const char* checkpoint = "", double stall = 0.0) {
  StepRecord r;
  r.step = n;
  r.clock_s = clock;
  r.real_tokens = real;
  r.slots = slots;
  r.loss = loss;
  r.aux_loss = 0.01;
  r.lr = 1e-3;
  r.resource = resource;
  r.price_per_node_hour = 1.5;
  r.nodes = 1;
  r.dollars = dollars;
  r.checkpoint = checkpoint;
  r.stall_s = stall;
  return r;
}

}  // namespace

// Step i at clock 10 i, loss 7 - i, 60 real tokens of 100 slots, dollars
// 0.5 i; full checkpoints at steps 3 and 6 (2 s stall each); evals at
// (31 s, 4.5) and (61 s, 3.0); finish at 62 s.
void write_baseline_run(const std::filesystem::path& dir) {
  MetricsWriter w(dir, 0);
  w.run_info("batching", "padded");
  w.run_info("ffn", "dense");
  w.event(0.0, "start", 0);
  for (int i = 1; i <= 6; ++i) {
    const bool save = i % 3 == 0;
    w.step(step(i, 10.0 * i, 60, 100, 7.0 - i, "reserved", 0.5 * i, save ? "full" : "", save ? 2.0 : 0.0));
    if (save) w.event(10.0 * i, "checkpoint", i, "step-" + std::to_string(i));
    if (i == 3) w.eval(3, 31.0, 4.5);
    if (i == 6) w.eval(6, 61.0, 3.0);
  }
  w.event(62.0, "finish", 6);
  LedgerTotals l;
  l.dollars = 3.1;
  l.reserved_dollars = 3.1;
  l.productive_dollars = 2.5;
  l.stall_dollars = 0.6;
  l.wall_s = 62.0;
  l.checkpoints_full = 2;
  w.ledger(l);
}

// Step i at clock 5 i (attempt 0) with 90 real tokens of 100 slots and
// dollars 0.02 per second of clock. Attempt 0: steps 1-5 (heartbeat at 2,
// full at 3), eval (16 s, 4.0), notice at 26 s, killed at 28 s. Attempt
// 1: resume at 32 s from step 3, replays 4 and 5 at 35 and 40 s with the
// same losses, then steps 6-8 at 45, 50, 55 s (full at 6), evals (46 s,
// 2.8) and (56 s, 2.0), finish at 57 s. Expert loads at steps 3 and 6.
void write_frugal_run(const std::filesystem::path& dir) {
  const double losses[] = {0.0, 6.0, 5.0, 4.0, 3.0, 2.5, 2.0, 1.5, 1.0};
  {
    MetricsWriter w(dir, 0);
    w.run_info("batching", "packed");
    w.run_info("time_scale", "1");
    w.run_info("time_scale", "2");  // written again: the last value counts
    w.event(0.0, "start", 0);
    for (int i = 1; i <= 5; ++i) {
      const char* save = i == 2 ? "heartbeat" : i == 3 ? "full" : "";
      const double stall = i == 2 ? 0.5 : i == 3 ? 1.0 : 0.0;
      w.step(step(i, 5.0 * i, 90, 100, losses[i], "spot", 0.02 * 5.0 * i, save, stall));
    }
    w.eval(3, 16.0, 4.0);
    for (int e = 0; e < 4; ++e) w.expert_load(3, 0, e, 10.0);
    w.event(26.0, "preempt_notice", 5);
  }
  {
    // The supervisor's lines about attempt 0, then the restart.
    MetricsWriter supervisor(dir, 0);
    supervisor.event(28.0, "killed", 5, "SIGKILL");
  }
  MetricsWriter w(dir, 1);
  w.event(30.0, "restart", 3);
  w.event(32.0, "resume", 3, "step-3");
  for (int i = 4; i <= 8; ++i) {
    const double clock = 5.0 * i + 15.0;
    w.step(step(i, clock, 90, 100, losses[i], i == 8 ? "reserved" : "spot", 0.02 * clock, i == 6 ? "full" : "",
                i == 6 ? 1.0 : 0.0));
    if (i <= 5) w.resume(3, i, losses[i], losses[i]);
  }
  w.eval(6, 46.0, 2.8);
  const double layer0[] = {10.0, 20.0, 30.0, 40.0};
  for (int e = 0; e < 4; ++e) {
    w.expert_load(6, 0, e, layer0[e]);
    w.expert_load(6, 1, e, 25.0);
  }
  w.eval(8, 56.0, 2.0);
  w.event(57.0, "finish", 8);
  LedgerTotals l;
  l.dollars = 1.2;
  l.spot_dollars = 1.0;
  l.reserved_dollars = 0.2;
  l.productive_dollars = 0.9;
  l.stall_dollars = 0.1;
  l.lost_dollars = 0.2;
  l.wall_s = 57.0;
  l.lost_s = 13.0;
  l.restarts = 1;
  l.checkpoints_full = 2;
  l.checkpoints_heartbeat = 1;
  w.ledger(l, {{"emergency_dollars", 0.05}});
}

}  // namespace demo_report_test
