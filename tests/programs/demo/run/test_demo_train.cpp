// The trainer's own pieces, without training: its counters' state blob,
// the checkpoints with every registered state restored, the command line
// and the worker's copy of it, the --out rules and the job clock that
// survives restarts.
#include <catch2/catch.hpp>

#include <stdlib.h>  // mkdtemp (POSIX)

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "demo_options.hpp"
#include "fp8_fake_quant.hpp"
#include "frugal/sdk/host.hpp"
#include "job_clock.hpp"
#include "output_dir.hpp"
#include "run_checkpoints.hpp"
#include "strategy_support.hpp"
#include "train_progress.hpp"

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

TrainProgress sample_progress() {
  TrainProgress p;
  p.step = 1234;
  p.adam_steps = 1234;
  p.tokens = 987654;
  p.last_loss = 2.718281828459045;
  p.resource = 2;
  return p;
}

std::string error_of(const std::vector<std::uint8_t>& bytes) {
  try {
    decode_train_progress(bytes);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the trainer's progress state round-trips every field") {
  const TrainProgress in = sample_progress();
  const TrainProgress out = decode_train_progress(encode_train_progress(in));
  CHECK(out.step == 1234);
  CHECK(out.adam_steps == 1234);
  CHECK(out.tokens == 987654);
  CHECK(out.last_loss == in.last_loss);  // bit for bit
  CHECK(out.resource == 2);
}

TEST_CASE("a malformed progress state is refused, naming what is wrong") {
  const std::vector<std::uint8_t> good = encode_train_progress(sample_progress());
  auto bad_magic = good;
  bad_magic[0] = 'X';
  CHECK_THAT(error_of(bad_magic), Catch::Contains("train/progress") && Catch::Contains("magic"));
  auto flipped = good;
  flipped[10] ^= 0x01;
  CHECK_THAT(error_of(flipped), Catch::Contains("checksum"));
  TrainProgress no_capacity = sample_progress();
  no_capacity.resource = 0;
  CHECK_THAT(error_of(encode_train_progress(no_capacity)), Catch::Contains("capacity class 0"));
  TrainProgress mismatched = sample_progress();
  mismatched.adam_steps = 1233;
  CHECK_THAT(error_of(encode_train_progress(mismatched)), Catch::Contains("AdamW steps 1233 do not match step 1234"));
}

namespace {

void quantize_once(Fp8QuantHooks& hooks, float magnitude) {
  std::vector<float> in(8 * 16), out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = magnitude * static_cast<float>(i % 7) - 2.0f;
  for (std::size_t i = 0; i < hooks.hooked(); ++i) hooks.hook(i).apply(in, out, 8, 16, QuantRole::activation);
}

}  // namespace

// What a resume relies on: each strategy state registered with the engine
// comes back as it was at the save, not as it was later, and a checkpoint
// missing one of them is refused by name.
TEST_CASE("run checkpoints restore the tensors and every registered state as saved") {
  ScratchDir scratch;
  const auto context = demo_test::plugin_context();
  Model<float> model(demo_test::small_moe_config(1));
  Fp8QuantHooks hooks(context.get(), model);
  std::vector<float> parameters(64, 1.5f), moments(32, -0.25f);
  std::vector<std::uint8_t> cursor{1, 2, 3};
  std::vector<std::uint8_t> restored_cursor;
  {
    RunCheckpoints checkpoints(context.get(), scratch.path / "store", parameters, moments);
    for (std::size_t i = 0; i < hooks.hooked(); ++i)
      checkpoints.register_quantizer("fp8/" + hooks.names()[i], hooks.quantizer(i));
    checkpoints.register_state(
        "data/cursor",
        {[&] { return cursor; }, [&](std::span<const std::uint8_t> b) { restored_cursor.assign(b.begin(), b.end()); }});
    CHECK_FALSE(checkpoints.restore_latest().has_value());  // a fresh run

    quantize_once(hooks, 3.0f);  // amax histories to save
    const auto saved_quant = demo_test::quantizer_states(hooks);
    const SaveOutcome saved = checkpoints.save(FRUGAL_CKPT_HEARTBEAT, 7, true);
    // Everything moves on past the checkpoint.
    quantize_once(hooks, 40.0f);
    REQUIRE(demo_test::quantizer_states(hooks) != saved_quant);
    std::fill(parameters.begin(), parameters.end(), 9.0f);
    std::fill(moments.begin(), moments.end(), 9.0f);
    cursor = {9, 9};

    const auto restored = checkpoints.restore_latest();
    REQUIRE(restored.has_value());
    CHECK(restored->name == saved.name);
    CHECK(demo_test::quantizer_states(hooks) == saved_quant);
    CHECK(restored_cursor == std::vector<std::uint8_t>{1, 2, 3});
    CHECK(std::all_of(parameters.begin(), parameters.end(), [](float v) { return v == 1.5f; }));
    CHECK(std::all_of(moments.begin(), moments.end(), [](float v) { return v == -0.25f; }));
  }
  // A build that registers one more state finds the checkpoint lacking it.
  RunCheckpoints newer(context.get(), scratch.path / "store", parameters, moments);
  for (std::size_t i = 0; i < hooks.hooked(); ++i)
    newer.register_quantizer("fp8/" + hooks.names()[i], hooks.quantizer(i));
  newer.register_state("data/cursor", {[&] { return cursor; }, [](std::span<const std::uint8_t>) {}});
  newer.register_state("train/progress",
                       {[] { return std::vector<std::uint8_t>{}; }, [](std::span<const std::uint8_t>) {}});
  CHECK_THROWS_WITH(newer.restore_latest(), Catch::Contains("holds no 'train/progress'"));
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
  CHECK_THROWS_WITH(parse_demo_options({"--budget-s", "nan"}),
                    "option --budget-s: 'nan' is not a positive number of seconds");
  CHECK_THROWS_WITH(parse_demo_options({"--threads"}), "--threads needs a value");
  CHECK_THROWS_WITH(parse_demo_options({"-q"}), Catch::Matchers::StartsWith("unknown argument '-q'"));
  CHECK_THROWS_WITH(parse_demo_options({"--out", "--quick"}), "--out needs a value");
  CHECK_THROWS_WITH(parse_demo_options({"--corpus", "a", "--corpus"}), "--corpus needs a value");
}

TEST_CASE("the --out directory: created, cleared when it is a previous demo output, refused otherwise") {
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
  // The second reads the first's start: its clock is not behind. Read the
  // first one first: the order in which a comparison's two operands are
  // evaluated is unspecified (Clang reads them the other way round), and a
  // clock read later is ahead anyway.
  const double first_now = first.now_s();
  const double again_now = again.now_s();
  CHECK(again_now >= first_now);
  CHECK(again.now_s() == Approx(again.real_elapsed_s() * 60).margin(0.5));
  std::ofstream(file, std::ios::trunc) << "started yesterday\n";
  CHECK_THROWS_WITH(JobClock::open_or_start(file, 60), Catch::Contains("is malformed"));
}
