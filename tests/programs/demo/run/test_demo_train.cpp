// The trainer's own pieces, without training: the checkpoint metadata
// blob, the command line and the worker's copy of it, the --out rules and
// the job clock that survives restarts.
#include <catch2/catch.hpp>

#include <stdlib.h>  // mkdtemp (POSIX)

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "checkpoint_metadata.hpp"
#include "demo_options.hpp"
#include "job_clock.hpp"
#include "output_dir.hpp"

using namespace frugal_demo;
namespace fs = std::filesystem;

namespace {

// A fresh directory under the system's temporary directory, removed at the end.
struct ScratchDir {
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "frugal-demo-train-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  fs::path path;
};

CheckpointMetadata sample_metadata() {
  CheckpointMetadata m;
  m.step = 1234;
  m.adam_steps = 1234;
  m.tokens = 987654;
  m.last_loss = 2.718281828459045;
  m.resource = 2;
  m.data_cursor = {1, 2, 3};
  m.router_state = {4, 5};
  m.quant_state = {};
  m.scheduler_state = std::vector<std::uint8_t>(300, 7);
  return m;
}

std::string error_of(const std::vector<std::uint8_t>& bytes) {
  try {
    decode_checkpoint_metadata(bytes);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("checkpoint metadata round-trips every field") {
  const CheckpointMetadata in = sample_metadata();
  const CheckpointMetadata out = decode_checkpoint_metadata(encode_checkpoint_metadata(in));
  CHECK(out.step == 1234);
  CHECK(out.adam_steps == 1234);
  CHECK(out.tokens == 987654);
  CHECK(out.last_loss == in.last_loss);  // bit for bit
  CHECK(out.resource == 2);
  CHECK(out.data_cursor == in.data_cursor);
  CHECK(out.router_state == in.router_state);
  CHECK(out.quant_state.empty());
  CHECK(out.scheduler_state == in.scheduler_state);
}

TEST_CASE("malformed checkpoint metadata is refused, naming what is wrong") {
  const std::vector<std::uint8_t> good = encode_checkpoint_metadata(sample_metadata());
  auto bad_magic = good;
  bad_magic[0] = 'X';
  CHECK_THAT(error_of(bad_magic), Catch::Contains("does not start with FDMC"));
  auto newer = good;
  newer[4] = 2;  // version, little-endian
  CHECK_THAT(error_of(newer), Catch::Contains("version 2 is not 1"));
  const std::vector<std::uint8_t> truncated(good.begin(), good.end() - 10);
  CHECK_THAT(error_of(truncated), Catch::Contains("scheduler state"));
  auto trailing = good;
  trailing.push_back(0);
  CHECK_THAT(error_of(trailing), Catch::Contains("trailing bytes"));
  CheckpointMetadata no_capacity = sample_metadata();
  no_capacity.resource = 0;
  CHECK_THAT(error_of(encode_checkpoint_metadata(no_capacity)), Catch::Contains("capacity class 0"));
  CheckpointMetadata mismatched = sample_metadata();
  mismatched.adam_steps = 1233;
  CHECK_THAT(error_of(encode_checkpoint_metadata(mismatched)), Catch::Contains("AdamW steps 1233 do not match step 1234"));
}

TEST_CASE("options parse, and a worker's arguments rebuild the same options") {
  const DemoOptions o = parse_demo_options({"--quick", "--out", "x/y", "--budget-s", "12.345678901234567", "--seed",
                                            "42", "--threads", "3", "--corpus", "a", "--corpus", "b", "--no-preempt"});
  CHECK(o.quick);
  CHECK(o.out == fs::path("x/y"));
  REQUIRE(o.budget_s);
  CHECK(*o.budget_s == 12.345678901234567);
  CHECK(o.seed == 42);
  CHECK(o.threads == 3);
  CHECK(o.corpus == std::vector<fs::path>{"a", "b"});
  CHECK_FALSE(o.preempt);
  const DemoOptions w = parse_demo_options(worker_arguments(o, "frugal", 2));
  CHECK(w.worker == "frugal");
  CHECK(w.attempt == 2);
  CHECK(w.quick);
  CHECK(w.out == o.out);
  REQUIRE(w.budget_s);
  CHECK(*w.budget_s == *o.budget_s);  // exactly: the worker must compute the same plan
  CHECK(w.seed == 42);
  CHECK(w.threads == 3);
  CHECK(w.corpus == o.corpus);
  CHECK_FALSE(w.preempt);
}

TEST_CASE("bad options name the option") {
  CHECK_THROWS_WITH(parse_demo_options({"--seed", "-1"}), "option --seed: '-1' is not a non-negative integer");
  CHECK_THROWS_WITH(parse_demo_options({"--budget-s", "nan"}), "option --budget-s: 'nan' is not a positive number of seconds");
  CHECK_THROWS_WITH(parse_demo_options({"--threads"}), "option --threads needs a value");
  CHECK_THROWS_WITH(parse_demo_options({"-q"}), "unknown option '-q'");
}

TEST_CASE("--out: created, cleared when it is a previous demo output, refused otherwise") {
  ScratchDir scratch;
  const fs::path out = scratch.path / "out";
  CHECK_THAT(prepare_output_dir(out), Catch::Contains("created"));
  CHECK(fs::exists(out / kOutputMarker));
  std::ofstream(out / "old.csv") << "x\n";
  fs::create_directories(out / "frugal" / "store");
  CHECK_THAT(prepare_output_dir(out), Catch::Contains("cleared the previous demo output"));
  CHECK_FALSE(fs::exists(out / "old.csv"));
  CHECK_FALSE(fs::exists(out / "frugal"));
  CHECK(fs::exists(out / kOutputMarker));

  const fs::path foreign = scratch.path / "foreign";
  fs::create_directories(foreign);
  std::ofstream(foreign / "thesis.tex") << "mine\n";
  CHECK_THROWS_WITH(prepare_output_dir(foreign), Catch::Contains("is not a previous frugal-demo output"));
  CHECK(fs::exists(foreign / "thesis.tex"));
  CHECK_THROWS_WITH(prepare_output_dir(foreign / "thesis.tex"), Catch::Contains("is not a directory"));
}

TEST_CASE("the job clock keeps its start across processes and refuses a malformed file") {
  ScratchDir scratch;
  const fs::path file = scratch.path / "run" / "start.txt";
  const JobClock first = JobClock::open_or_start(file, 60);
  REQUIRE(fs::exists(file));
  const JobClock again = JobClock::open_or_start(file, 60);
  // The second reads the first's start: its clock is not behind.
  CHECK(again.now_s() >= first.now_s() - 1e-6);
  CHECK(again.now_s() == Approx(again.real_elapsed_s() * 60).margin(0.5));
  std::ofstream(file, std::ios::trunc) << "started yesterday\n";
  CHECK_THROWS_WITH(JobClock::open_or_start(file, 60), Catch::Contains("is malformed"));
}
