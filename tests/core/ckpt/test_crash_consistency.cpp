// Crash consistency: crash_child checkpoints every training step until it
// is SIGKILLed at a random moment, then is restarted on the same store;
// after every kill this process checks, through the C API, what a real job
// would recover:
//   * no torn save is ever mistaken for a valid checkpoint (every listed
//     checkpoint verifies as VALID or INCOMPLETE, never CORRUPT), and every
//     VALID one restores exactly the state and metadata of its step: its
//     tensors and its host states (frugal_ckpt_register_state) alike, so a
//     state never comes back from another step than its tensors';
//   * recovery finds a checkpoint once a commit was reported, restores it
//     bit for bit, and loses at most the one save that was in flight
//     (last reported commit <= restored step <= last save begun).
// crash_child itself checks each resume the same way before training on.
//
// Environment: FRUGAL_CRASH_ITERATIONS (default 200) kills, FRUGAL_CRASH_SEED
// the seed of the kill delays (default fixed, for reproducible schedules).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "ckpt_fixture.hpp"
#include "test_helpers.hpp"

extern char** environ;

using namespace frugal;
using namespace frugal::test;
using crash::State;
namespace fs = std::filesystem;

namespace {

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::strtoull(text, nullptr, 10) : fallback;
}

using Clock = std::chrono::steady_clock;

// How long a child takes to reach its first save, to persist that first
// save (slower: it also retires what earlier kills left) and later ones,
// learnt from the runs so far (moving averages), so kill moments spread
// over the phases of a run whatever the speed of the machine and its disk.
struct Pace {
  double startup_us = 50000;     // spawn -> first "begin"
  double first_save_us = 50000;  // first "begin" -> first "committed"
  double save_us = 20000;        // "begin s" -> "committed s" afterwards
};

// When to kill: `after_us` after the event `anchor`.
enum class Anchor { kSpawn, kFirstBegin, kFirstCommit };
struct KillAt {
  Anchor anchor = Anchor::kSpawn;
  int64_t after_us = 0;
};

KillAt draw_kill(std::mt19937_64& rng, const Pace& pace) {
  auto uniform = [&](double max_us) {
    return std::uniform_int_distribution<int64_t>(0, static_cast<int64_t>(max_us))(rng);
  };
  // A quarter of the kills land in start-up and restore, a quarter in the
  // first save after the restart, half in the saves after it (snapshots,
  // shard writes, manifest commits, retention). Waiting for an event
  // rather than a fixed time keeps slow disks from starving later phases.
  switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
    case 0: return {Anchor::kSpawn, uniform(pace.startup_us)};
    case 1: return {Anchor::kFirstBegin, uniform(pace.first_save_us)};
    default: return {Anchor::kFirstCommit, uniform(2 * pace.save_us)};
  }
}

struct ChildRun {
  std::string out;  // the protocol lines (see crash_child.cpp)
  std::string err;  // its stderr: engine warnings, sanitizer reports
  int status = 0;
  bool hung = false;  // its kill's anchor event never came
};

// Starts crash_child on `root`, SIGKILLs it at `when`, returns what it said
// before dying, and updates `pace` from the times its lines arrived.
ChildRun run_and_kill(const std::string& root, const std::string& err_path, const KillAt& when, Pace& pace) {
  int out[2];
  REQUIRE(::pipe2(out, O_CLOEXEC) == 0);
  posix_spawn_file_actions_t actions;
  REQUIRE(posix_spawn_file_actions_init(&actions) == 0);
  REQUIRE(posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO) == 0);
  REQUIRE(posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                           0644) == 0);
  std::string child = FRUGAL_CRASH_CHILD, dir = root;
  char* argv[] = {child.data(), dir.data(), nullptr};
  pid_t pid = 0;
  const auto spawned_at = Clock::now();
  const int spawned = posix_spawn(&pid, child.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  REQUIRE(spawned == 0);

  ChildRun run;
  // Until its anchor event happens the kill waits; a child that gets
  // nowhere within a minute is hung, and is killed so the checks report it.
  auto kill_at = spawned_at + (when.anchor == Anchor::kSpawn ? std::chrono::microseconds(when.after_us)
                                                             : std::chrono::microseconds(std::chrono::minutes(1)));
  std::optional<Clock::time_point> first_begin, begin, first_commit;
  bool killed = false, eof = false;
  std::string pending;
  auto us_since = [](Clock::time_point t) {
    return static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t).count());
  };
  auto learn = [](double& average, double sample) { average = 0.8 * average + 0.2 * sample; };
  while (!eof) {
    int timeout_ms = -1;
    if (!killed) {
      const auto left = std::chrono::duration_cast<std::chrono::microseconds>(kill_at - Clock::now()).count();
      if (left <= 0) {
        ::kill(pid, SIGKILL);
        killed = true;
        continue;
      }
      // poll has millisecond resolution: sleep out the rest precisely.
      if (left < 1000) {
        std::this_thread::sleep_for(std::chrono::microseconds(left));
        continue;
      }
      timeout_ms = static_cast<int>(left / 1000);
    }
    pollfd fd{out[0], POLLIN, 0};
    if (::poll(&fd, 1, timeout_ms) <= 0) continue;  // timeout (or EINTR): re-check the kill time
    char buffer[4096];
    const ssize_t n = ::read(out[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    REQUIRE(n >= 0);
    eof = n == 0;
    run.out.append(buffer, static_cast<size_t>(n));
    pending.append(buffer, static_cast<size_t>(n));
    for (size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1)) {
      const std::string line = pending.substr(0, nl);
      const auto now = Clock::now();
      if (line.rfind("begin ", 0) == 0) {
        if (!first_begin) {
          first_begin = now;
          learn(pace.startup_us, us_since(spawned_at));
          if (when.anchor == Anchor::kFirstBegin) kill_at = now + std::chrono::microseconds(when.after_us);
        }
        begin = now;
      } else if (line.rfind("committed ", 0) == 0 && begin) {
        if (!first_commit) {
          first_commit = now;
          learn(pace.first_save_us, us_since(*begin));
          if (when.anchor == Anchor::kFirstCommit) kill_at = now + std::chrono::microseconds(when.after_us);
        } else {
          learn(pace.save_us, us_since(*begin));
        }
      }
    }
  }
  ::close(out[0]);
  run.hung =
      (when.anchor == Anchor::kFirstBegin && !first_begin) || (when.anchor == Anchor::kFirstCommit && !first_commit);
  if (!killed) ::kill(pid, SIGKILL);  // EOF before the kill: it died on its own (the status says how)
  REQUIRE(::waitpid(pid, &run.status, 0) == pid);
  std::ifstream err_file(err_path);
  run.err.assign(std::istreambuf_iterator<char>(err_file), {});
  return run;
}

// What the children have reported so far, over all runs.
struct Progress {
  bool any_commit = false;
  uint64_t committed = 0;             // newest step known durable ("committed" or "resumed")
  uint64_t begun = 0;                 // newest step whose save was started
  uint64_t commits = 0;               // "committed" lines seen (how much work the kills allowed)
  std::optional<uint64_t> in_flight;  // the step the last run died saving, if it did
  bool died_in_startup = false;       // the last run died before its first save
};

void absorb(const ChildRun& run, Progress& progress) {
  std::istringstream lines(run.out);
  progress.in_flight.reset();
  progress.died_in_startup = true;
  for (std::string word; lines >> word;) {
    uint64_t step = 0;
    lines >> step;
    if (word == "committed" || word == "resumed") {
      progress.any_commit = true;
      progress.committed = std::max(progress.committed, step);
      progress.commits += word == "committed";
      progress.in_flight.reset();
    } else if (word == "begin") {
      progress.begun = std::max(progress.begun, step);
      progress.in_flight = step;
      progress.died_in_startup = false;
    } else {
      FAIL("crash_child said '" << word << "' (" << run.out << ")");
    }
  }
}

// A sanitizer's report in the child's stderr (the child never exits on
// its own, so its exit status cannot carry one).
bool has_sanitizer_report(const std::string& err) {
  return err.find("Sanitizer") != std::string::npos || err.find("runtime error:") != std::string::npos;
}

struct Stats {
  uint64_t kills_in_startup = 0;        // before the run's first save began
  uint64_t kills_mid_save = 0;          // between "begin s" and "committed s"
  uint64_t kills_with_torn_save = 0;    // ... that left save s without a manifest
  uint64_t kills_after_unreported = 0;  // ... after s committed, before the child could say so
  uint64_t valid_restored = 0;
};

// Everything a restarted job relies on, checked on the store as the kill left it.
void check_after_kill(frugal_store* store, const Progress& progress, Stats& stats) {
  State state;  // outlives the engine, which borrows its memory
  auto engine = make_engine(store);
  host::check(state.register_all(engine.get()));
  host::check(state.register_states(engine.get()));

  for (const auto& info : list_all(engine.get(), true)) {
    INFO(info.name << ": status " << info.status << " (" << info.reason << ")");
    REQUIRE((info.status == FRUGAL_CKPT_VALID || info.status == FRUGAL_CKPT_INCOMPLETE));
    if (info.status == FRUGAL_CKPT_INCOMPLETE) {
      // Torn: this kill's save in flight, an earlier kill's (retention
      // removes those after the next commit), or a retirement cut short
      // (retention removes the manifest first).
      stats.kills_with_torn_save += progress.in_flight == info.step;
      continue;
    }
    const auto restored = restore_exact(engine.get(), state, info.name);
    CHECK(restored.step == info.step);
    ++stats.valid_restored;
  }

  frugal_ckpt_info latest{};
  latest.struct_size = sizeof(latest);
  const auto found = outcome(frugal_ckpt_latest(engine.get(), FRUGAL_CKPT_ALL_KINDS, &latest));
  if (!progress.any_commit && found.code == FRUGAL_ERR_NOT_FOUND) return;  // killed before the first commit
  INFO(found.message);
  REQUIRE(found.code == 0);
  // At most the save in flight is lost; nothing newer than the last save begun appears.
  CHECK(latest.step >= progress.committed);
  CHECK(latest.step <= progress.begun);
  stats.kills_after_unreported += latest.step > progress.committed;
  const auto restored = restore_exact(engine.get(), state, nullptr);
  CHECK(std::string(restored.name) == latest.name);
}

}  // namespace

TEST_CASE("SIGKILL at random moments never loses more than the save in flight, never yields a torn checkpoint") {
  const uint64_t iterations = env_number("FRUGAL_CRASH_ITERATIONS", 200);
  const uint64_t seed = env_number("FRUGAL_CRASH_SEED", 20240611);
  WARN("crash harness: " << iterations << " kills, seed " << seed);

  ScratchDir dir;
  const std::string root = (dir.path / "store").string();
  const std::string err_path = (dir.path / "child-stderr.txt").string();
  CapturingContext context;  // keeps the engine's "skipped newer" warnings out of the test log
  StorePtr store;            // opened once a child has created the root

  static const char* const kAnchors[] = {"the start", "the first save began", "the first commit"};
  std::mt19937_64 rng(seed);
  Pace pace;
  Progress progress;
  Stats stats;
  for (uint64_t i = 0; i < iterations; ++i) {
    const KillAt when = draw_kill(rng, pace);
    INFO("kill " << i << ": " << when.after_us << " us after " << kAnchors[static_cast<int>(when.anchor)] << " (seed "
                 << seed << ")");
    const ChildRun run = run_and_kill(root, err_path, when, pace);
    INFO("child stdout:\n" << run.out << "child stderr:\n" << run.err);
    // It must die by our kill: exiting on its own means it found a bad resume.
    REQUIRE_FALSE(run.hung);
    REQUIRE(WIFSIGNALED(run.status));
    REQUIRE(WTERMSIG(run.status) == SIGKILL);
    REQUIRE_FALSE(has_sanitizer_report(run.err));
    absorb(run, progress);
    stats.kills_in_startup += progress.died_in_startup;
    stats.kills_mid_save += progress.in_flight.has_value();
    if (!fs::exists(root)) continue;  // killed before the store existed
    if (!store) store = open_fs_store(context.context.get(), root);
    check_after_kill(store.get(), progress, stats);
  }

  WARN("crash harness: " << progress.commits << " commits, last committed step " << progress.committed
                         << "; kills: " << stats.kills_in_startup << " in start-up, " << stats.kills_mid_save
                         << " mid-save (" << stats.kills_with_torn_save << " left it torn, "
                         << stats.kills_after_unreported << " came after its commit); " << stats.valid_restored
                         << " valid checkpoints restored exactly");
  // What killed puts left behind (store_fs temp files; see the faults test
  // "what a killed put leaves behind is reclaimed ...").
  if (fs::exists(root)) {
    DiskUsage leftovers;
    for (const auto& entry : fs::recursive_directory_iterator(root))
      if (entry.is_regular_file() && entry.path().filename().string().rfind(".tmp.", 0) == 0) {
        ++leftovers.files;
        leftovers.bytes += entry.file_size();
      }
    WARN("crash harness: " << leftovers.files << " temp files of killed puts left in the store (" << leftovers.bytes
                           << " bytes)");
  }
  // The schedule must have exercised what it claims (not only start-ups):
  // training progressed across restarts, and many kills hit a save.
  if (iterations >= 100) {
    CHECK(progress.commits >= iterations / 4);
    CHECK(stats.kills_in_startup >= iterations / 10);
    CHECK(stats.kills_mid_save >= iterations / 3);
    CHECK(stats.kills_with_torn_save >= iterations / 10);
  }
}
