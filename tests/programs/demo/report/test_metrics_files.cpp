// The metrics files: written by MetricsWriter, read back exactly; a torn
// last line skipped (and cut by the next writer); malformed lines refused
// with file:line.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "metrics.hpp"
#include "metrics_writer.hpp"
#include "synthetic_runs.hpp"

using namespace frugal_demo;
using demo_report_test::file_text;
using demo_report_test::TempDir;

namespace {

void append_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::app);
  out << text;
}

std::string read_error(const std::filesystem::path& dir) {
  try {
    read_run_metrics(dir);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("metrics written by several attempts read back record by record") {
  TempDir tmp;
  demo_report_test::write_frugal_run(tmp.path());
  const auto m = read_run_metrics(tmp.path());

  // One header per file however many writers appended to it.
  const auto steps_text = file_text(tmp.path() / kStepsFile);
  CHECK(steps_text.rfind("attempt,step,clock_s,real_tokens,slots,loss,aux_loss,lr,resource,price_per_node_hour,nodes,"
                         "dollars,checkpoint,stall_s\n",
                         0) == 0);
  CHECK(steps_text.find("attempt,step", 1) == std::string::npos);

  REQUIRE(m.steps.size() == 10);
  CHECK(m.steps[0].attempt == 0);
  CHECK(m.steps[0].step == 1);
  CHECK(m.steps[0].clock_s == 5.0);
  CHECK(m.steps[0].real_tokens == 90);
  CHECK(m.steps[0].slots == 100);
  CHECK(m.steps[0].loss == 6.0);
  CHECK(m.steps[0].aux_loss == Approx(0.01).epsilon(1e-8));
  CHECK(m.steps[0].lr == 1e-3);  // %.17g round-trips exactly
  CHECK(m.steps[0].resource == "spot");
  CHECK(m.steps[0].price_per_node_hour == 1.5);
  CHECK(m.steps[0].dollars == 0.02 * 5.0);
  CHECK(m.steps[1].checkpoint == "heartbeat");
  CHECK(m.steps[1].stall_s == 0.5);
  CHECK(m.steps[5].attempt == 1);  // the first replayed step
  CHECK(m.steps[5].step == 4);
  CHECK(m.steps[5].clock_s == 35.0);
  CHECK(m.steps[9].resource == "reserved");

  REQUIRE(m.evals.size() == 3);
  CHECK(m.evals[1].attempt == 1);
  CHECK(m.evals[1].step == 6);
  CHECK(m.evals[1].eval_loss == Approx(2.8).epsilon(1e-8));

  REQUIRE(m.events.size() == 6);
  CHECK(m.events[2].event == "killed");
  CHECK(m.events[2].attempt == 0);
  CHECK(m.events[2].detail == "SIGKILL");
  CHECK(m.events[4].event == "resume");
  CHECK(m.events[4].attempt == 1);
  CHECK(m.events[4].step == 3);
  CHECK(m.events[4].detail == "step-3");

  REQUIRE(m.experts.size() == 12);
  CHECK(m.experts[7].step == 6);
  CHECK(m.experts[7].layer == 1);
  CHECK(m.experts[7].expert == 1);
  CHECK(m.experts[7].load == 25.0);

  REQUIRE(m.resumes.size() == 2);
  CHECK(m.resumes[1].attempt == 1);
  CHECK(m.resumes[1].restored_step == 3);
  CHECK(m.resumes[1].replayed_step == 5);
  CHECK(m.resumes[1].loss_before == m.resumes[1].loss_after);

  REQUIRE(m.has_ledger);
  CHECK(m.ledger.dollars == 1.2);
  CHECK(m.ledger.spot_dollars == 1.0);
  CHECK(m.ledger.lost_s == 13.0);
  CHECK(m.ledger.restarts == 1);
  CHECK(m.ledger.checkpoints_heartbeat == 1);
  CHECK(m.ledger_values.at("emergency_dollars") == 0.05);
  CHECK(!std::filesystem::exists(tmp.path() / "ledger.csv.tmp"));

  REQUIRE(m.run_info.size() == 2);
  CHECK(m.run_info[0] == std::pair<std::string, std::string>{"batching", "packed"});
  CHECK(m.run_info[1] == std::pair<std::string, std::string>{"time_scale", "2"});
}

TEST_CASE("steps alone read back as in the whole run, without the other files") {
  TempDir tmp;
  demo_report_test::write_frugal_run(tmp.path());
  const auto whole = read_run_metrics(tmp.path());
  // A live worker's directory: only steps.csv so far, and an eval file
  // whose last line is malformed must not matter to a steps-only read.
  for (const auto& entry : std::filesystem::directory_iterator(tmp.path()))
    if (entry.path().filename() != kStepsFile) std::filesystem::remove(entry.path());
  append_text(tmp.path() / kEvalFile, "not,a,header\nx\n");
  const auto steps = read_step_records(tmp.path());
  REQUIRE(steps.size() == whole.steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    CAPTURE(i);
    CHECK(steps[i].attempt == whole.steps[i].attempt);
    CHECK(steps[i].step == whole.steps[i].step);
    CHECK(steps[i].loss == whole.steps[i].loss);
    CHECK(steps[i].resource == whole.steps[i].resource);
    CHECK(steps[i].checkpoint == whole.steps[i].checkpoint);
  }
  CHECK(read_error(tmp.path()) != "no error");  // the whole-run reader does read evals.csv
  std::filesystem::remove(tmp.path() / kStepsFile);
  CHECK_THROWS_WITH(read_step_records(tmp.path()), Catch::Contains("steps.csv: missing"));
}

TEST_CASE("text fields with commas and quotes survive the round trip") {
  TempDir tmp;
  {
    MetricsWriter w(tmp.path(), 2);
    StepRecord r;
    r.step = 1;
    w.step(r);
    w.event(1.5, "checkpoint", 7, "name, with \"quotes\"");
    w.run_info("corpus source", "/usr/share/a,b");
  }
  const auto m = read_run_metrics(tmp.path());
  REQUIRE(m.events.size() == 1);
  CHECK(m.events[0].attempt == 2);
  CHECK(m.events[0].detail == "name, with \"quotes\"");
  CHECK(m.run_info.at(0).second == "/usr/share/a,b");
}

TEST_CASE("a torn last line is skipped, and the next writer cuts it off") {
  TempDir tmp;
  demo_report_test::write_baseline_run(tmp.path());
  const auto steps = tmp.path() / kStepsFile;
  append_text(steps, "0,7,70,60,100,0.5");  // SIGKILL in the middle of a write
  CHECK(read_run_metrics(tmp.path()).steps.size() == 6);

  {
    MetricsWriter w(tmp.path(), 1);
    StepRecord r;
    r.step = 7;
    r.clock_s = 80.0;
    w.step(r);
  }
  const auto m = read_run_metrics(tmp.path());
  REQUIRE(m.steps.size() == 7);
  CHECK(m.steps[6].attempt == 1);
  CHECK(m.steps[6].clock_s == 80.0);
  CHECK(file_text(steps).find("0,7,70,60,100,0.5") == std::string::npos);
}

TEST_CASE("malformed complete lines are refused naming file and line") {
  TempDir tmp;
  demo_report_test::write_baseline_run(tmp.path());
  const auto steps = (tmp.path() / kStepsFile).string();

  SECTION("a value that is no number") {
    append_text(tmp.path() / kStepsFile, "0,seven,70,60,100,0.5,0,0.001,reserved,1.5,1,3.5,,0\n");
    const auto error = read_error(tmp.path());
    CHECK(error.find(steps + ":8: column 'step': 'seven' is not an integer") != std::string::npos);
  }
  SECTION("a field missing") {
    append_text(tmp.path() / kStepsFile, "0,7,70,60,100,0.5,0,0.001,reserved,1.5,1,3.5,\n");
    CHECK(read_error(tmp.path()).find(steps + ":8: 13 fields where the header has 14") != std::string::npos);
  }
  SECTION("an unknown resource") {
    append_text(tmp.path() / kStepsFile, "0,7,70,60,100,0.5,0,0.001,ondemand,1.5,1,3.5,,0\n");
    CHECK(read_error(tmp.path()).find(steps + ":8: column 'resource': 'ondemand' is not one of: spot, reserved") !=
          std::string::npos);
  }
  SECTION("more real tokens than slots") {
    append_text(tmp.path() / kStepsFile, "0,7,70,160,100,0.5,0,0.001,reserved,1.5,1,3.5,,0\n");
    CHECK(read_error(tmp.path()).find(steps + ":8:") != std::string::npos);
  }
  SECTION("a header without a required column") {
    const auto eval = tmp.path() / kEvalFile;
    std::ofstream(eval, std::ios::trunc) << "attempt,step,eval_loss\n0,1,2.5\n";
    CHECK(read_error(tmp.path()).find(eval.string() + ":1: the header has no column 'clock_s'") != std::string::npos);
  }
  SECTION("a run directory without steps.csv") {
    std::filesystem::remove(tmp.path() / kStepsFile);
    CHECK(read_error(tmp.path()).find(steps + ": missing") != std::string::npos);
  }
}
