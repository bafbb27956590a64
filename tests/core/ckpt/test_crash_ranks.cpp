// Crash consistency across ranks: crash_ranks (a job of M ranks under
// mpirun, M drawn anew each run) resumes from the store and saves
// collectively until this harness SIGKILLs one or two of its ranks at a
// random moment, and the others up to 20 ms later (as a launcher ends a job
// that lost a node), again and again on the same store. After every kill:
//   * the next job, on another random M, restores and checks every
//     element of every slice on every rank, and its ranks agree on the
//     step (crash_ranks reports FAIL otherwise): 0 torn restores;
//   * it restores exactly the checkpoint the store's newest valid one is,
//     never older than the last commit rank 0 reported, never newer than
//     the last save begun;
//   * every checkpoint the store lists is VALID or INCOMPLETE (a torn
//     save), never CORRUPT, with every rank's shards read back.
// An engine call that fails before the kill (not because a peer died) is a
// failure too.
//
// Environment: FRUGAL_CRASH_ITERATIONS (default 100) kills,
// FRUGAL_CRASH_SEED the seed of the world sizes, victims and moments.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "ckpt_fixture.hpp"
#include "test_helpers.hpp"

extern char** environ;

using namespace frugal;
using namespace frugal::test;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::strtoull(text, nullptr, 10) : fallback;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

// How long a job takes from its ranks' start to its first save (engine,
// restore), to its first commit, and per save afterwards: learnt from the
// runs so far, so kill moments spread over the phases of a job whatever
// the machine's speed.
struct Pace {
  double restore_us = 200000;
  double first_save_us = 100000;
  double save_us = 50000;
};

enum class Anchor { kAllStarted, kFirstBegin, kFirstCommit };
struct KillAt {
  Anchor anchor = Anchor::kAllStarted;
  int64_t after_us = 0;
};

KillAt draw_kill(std::mt19937_64& rng, const Pace& pace) {
  auto uniform = [&](double max_us) {
    return std::uniform_int_distribution<int64_t>(0, static_cast<int64_t>(max_us))(rng);
  };
  // A quarter in engine creation and the collective restore, a quarter
  // in the first save, half in the saves after it.
  switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
    case 0: return {Anchor::kAllStarted, uniform(pace.restore_us)};
    case 1: return {Anchor::kFirstBegin, uniform(pace.first_save_us)};
    default: return {Anchor::kFirstCommit, uniform(2 * pace.save_us)};
  }
}

struct JobRun {
  std::vector<std::string> lines;  // the report (crash_ranks.cpp)
  std::string output;              // mpirun's stdout and stderr
  std::vector<int> victims;        // ranks killed
  int64_t kill_ns = 0;             // steady-clock time of the kill
  bool killed = false;
  bool exited_early = false;  // mpirun ended before the kill
  bool hung = false;          // an anchor event never came, or a rank outlived its kill
};

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Starts `ranks` ranks of crash_ranks on `root`, kills some at `when` and
// then the rest; updates `pace` from its report.
JobRun run_and_kill(const std::string& root, const fs::path& dir, int ranks, const KillAt& when, std::mt19937_64& rng,
                    Pace& pace) {
  const std::string report = (dir / "report.txt").string(), output = (dir / "mpirun-output.txt").string();
  { std::ofstream truncate(report); }
  std::vector<std::string> args = split_words(FRUGAL_MPIEXEC_LINE);
  for (const std::string& extra :
       {std::string("-np"), std::to_string(ranks), std::string(FRUGAL_CRASH_RANKS), root, report})
    args.push_back(extra);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  REQUIRE(posix_spawn_file_actions_init(&actions) == 0);
  REQUIRE(posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                           0644) == 0);
  REQUIRE(posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO) == 0);
  posix_spawnattr_t attributes;
  REQUIRE(posix_spawnattr_init(&attributes) == 0);
  REQUIRE(posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP) == 0);  // its own group: killable as one
  pid_t mpirun = 0;
  const auto spawned_at = Clock::now();
  const int spawned = posix_spawn(&mpirun, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  REQUIRE(spawned == 0);

  JobRun run;
  std::map<int, pid_t> pids;
  std::optional<Clock::time_point> all_started, begin, first_begin, first_commit;
  auto kill_at = spawned_at + std::chrono::minutes(1);  // until the anchor event comes: a hang
  auto us_since = [](Clock::time_point t) {
    return static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t).count());
  };
  auto learn = [](double& average, double sample) { average = 0.8 * average + 0.2 * sample; };
  std::ifstream in;
  std::string pending;
  auto read_report = [&] {
    if (!in.is_open()) in.open(report);
    in.clear();
    for (std::string chunk(4096, '\0'); in.read(chunk.data(), 4096) || in.gcount() > 0;) {
      pending.append(chunk.data(), static_cast<size_t>(in.gcount()));
      if (in.gcount() < 4096) break;
    }
    for (size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1)) {
      const std::string line = pending.substr(0, nl);
      run.lines.push_back(line);
      const auto words = split_words(line);
      if (words.size() == 3 && words[0] == "pid") {
        pids[std::stoi(words[1])] = static_cast<pid_t>(std::stol(words[2]));
        if (static_cast<int>(pids.size()) == ranks && !all_started) {
          all_started = Clock::now();
          if (when.anchor == Anchor::kAllStarted) kill_at = *all_started + std::chrono::microseconds(when.after_us);
        }
      } else if (!words.empty() && words[0] == "begin") {
        if (!first_begin) {
          first_begin = Clock::now();
          if (all_started) learn(pace.restore_us, us_since(*all_started));
          if (when.anchor == Anchor::kFirstBegin) kill_at = *first_begin + std::chrono::microseconds(when.after_us);
        }
        begin = Clock::now();
      } else if (!words.empty() && words[0] == "committed" && begin) {
        if (!first_commit) {
          first_commit = Clock::now();
          learn(pace.first_save_us, us_since(*begin));
          if (when.anchor == Anchor::kFirstCommit) kill_at = *first_commit + std::chrono::microseconds(when.after_us);
        } else {
          learn(pace.save_us, us_since(*begin));
        }
      }
    }
  };
  int status = 0;
  // Until the kill: follow the report; mpirun ending first is a failure.
  while (!run.killed) {
    if (::waitpid(mpirun, &status, WNOHANG) == mpirun) {
      read_report();
      run.exited_early = true;
      run.output = read_file(output);
      return run;
    }
    read_report();
    if (Clock::now() >= kill_at) {
      if (!all_started || (when.anchor == Anchor::kFirstBegin && !first_begin) ||
          (when.anchor == Anchor::kFirstCommit && !first_commit)) {
        run.hung = true;  // the anchor event never came
      } else {
        // One rank, or two distinct ones, of the job.
        std::vector<int> all(static_cast<size_t>(ranks));
        for (int r = 0; r < ranks; ++r) all[static_cast<size_t>(r)] = r;
        std::shuffle(all.begin(), all.end(), rng);
        const size_t count = ranks >= 2 && std::uniform_int_distribution<int>(0, 3)(rng) == 0 ? 2 : 1;
        run.victims.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(count));
        run.kill_ns = now_ns();
        for (const int r : run.victims) ::kill(pids.at(r), SIGKILL);
      }
      run.killed = true;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  // The launcher then ends the job, as a scheduler does when a node is
  // lost: the other ranks run on for up to 20 ms (into the collective the
  // victims left), then die too. (mpirun would end them itself, after a
  // grace period of seconds per job.)
  std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, 20000)(rng)));
  for (const auto& [rank, pid] : pids) ::kill(pid, SIGKILL);
  // No rank may outlive its job: a straggler would write into the next
  // job's store. mpirun reaps its ranks; a zombie has stopped.
  auto gone = [](pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(stat, text);
    const auto close = text.rfind(')');
    return text.empty() || (close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z');
  };
  const auto reap_deadline = Clock::now() + std::chrono::seconds(20);
  for (const auto& [rank, pid] : pids)
    while (!gone(pid)) {
      if (Clock::now() > reap_deadline) {
        run.hung = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  ::kill(-mpirun, SIGKILL);
  REQUIRE(::waitpid(mpirun, &status, 0) == mpirun);
  read_report();
  run.output = read_file(output);
  return run;
}

// What the jobs have reported so far, over all runs.
struct Progress {
  std::optional<uint64_t> latest;  // the store's newest valid step, as the last check found it
  uint64_t committed = 0;          // newest step rank 0 reported committed (or a job resumed)
  uint64_t begun = 0;              // newest step whose save began
  uint64_t commits = 0;
  std::optional<uint64_t> in_flight;  // the step the last job died saving, if it did
  bool died_before_saving = true;
};

struct Stats {
  uint64_t kills_before_saving = 0;  // in engine creation or the restore
  uint64_t kills_mid_save = 0;
  uint64_t kills_with_torn_save = 0;
  uint64_t kills_after_unreported = 0;
  uint64_t resumes_checked = 0;  // ranks that restored and checked every element
  uint64_t errors_after_kill = 0;
  std::map<int, uint64_t> world_sizes;
};

// The report's lines against what the store held before the job started.
void absorb(const JobRun& run, int ranks, Progress& progress, Stats& stats) {
  progress.in_flight.reset();
  progress.died_before_saving = true;
  std::set<int> resumed;
  bool committed_here = false;
  for (const auto& line : run.lines) {
    INFO("report line: " << line);
    const auto words = split_words(line);
    REQUIRE(words.size() >= 2);
    if (words[0] == "FAIL") FAIL("a rank's check failed: " << line);
    if (words[0] == "error") {
      REQUIRE(words.size() >= 3);
      // Only a peer's death may make an engine call fail.
      REQUIRE(run.killed);
      REQUIRE(std::stoll(words[2]) >= run.kill_ns);
      ++stats.errors_after_kill;
    } else if (words[0] == "fresh") {
      REQUIRE_FALSE(progress.latest.has_value());
      resumed.insert(std::stoi(words[1]));
    } else if (words[0] == "resumed") {
      REQUIRE(words.size() == 3);
      REQUIRE(progress.latest.has_value());
      CHECK(std::stoull(words[2]) == *progress.latest);
      resumed.insert(std::stoi(words[1]));
      ++stats.resumes_checked;
    } else if (words[0] == "begin") {
      const uint64_t step = std::stoull(words[1]);
      progress.begun = std::max(progress.begun, step);
      progress.in_flight = step;
      progress.died_before_saving = false;
    } else if (words[0] == "committed") {
      progress.committed = std::max<uint64_t>(progress.committed, std::stoull(words[1]));
      ++progress.commits;
      progress.in_flight.reset();
      committed_here = true;
    } else {
      REQUIRE(words[0] == "pid");
    }
  }
  // A commit needs every rank, and each resumed before saving.
  if (committed_here) CHECK(static_cast<int>(resumed.size()) == ranks);
  if (!resumed.empty() && progress.latest) progress.committed = std::max(progress.committed, *progress.latest);
}

// The store as the kill left it, through an engine without a comm (as
// `frugal ckpt ls` and `verify` see it).
void check_store(frugal_store* store, Progress& progress, Stats& stats) {
  auto engine = make_engine(store);
  for (const auto& info : list_all(engine.get(), true)) {
    INFO(info.name << ": status " << info.status << " (" << info.reason << ")");
    REQUIRE((info.status == FRUGAL_CKPT_VALID || info.status == FRUGAL_CKPT_INCOMPLETE));
    if (info.status == FRUGAL_CKPT_INCOMPLETE) stats.kills_with_torn_save += progress.in_flight == info.step;
  }
  frugal_ckpt_info latest{};
  latest.struct_size = sizeof(latest);
  const auto found = outcome(frugal_ckpt_latest(engine.get(), FRUGAL_CKPT_ALL_KINDS, &latest));
  if (progress.commits == 0 && !progress.latest && found.code == FRUGAL_ERR_NOT_FOUND) return;
  INFO(found.message);
  REQUIRE(found.code == 0);
  // At most the save in flight is lost; nothing newer than the last save begun appears.
  CHECK(latest.step >= progress.committed);
  CHECK(latest.step <= progress.begun);
  stats.kills_after_unreported += latest.step > progress.committed;
  progress.latest = latest.step;
}

}  // namespace

TEST_CASE("SIGKILLed ranks never tear a collective checkpoint and every world size resumes the same step") {
  const uint64_t iterations = env_number("FRUGAL_CRASH_ITERATIONS", 100);
  const uint64_t seed = env_number("FRUGAL_CRASH_SEED", 20261207);
  WARN("crash harness across ranks: " << iterations << " kills, seed " << seed);

  ScratchDir dir;
  const std::string root = (dir.path / "store").string();
  fs::create_directories(root);
  CapturingContext context;  // keeps the engine's "skipped newer" warnings out of the log
  StorePtr store = open_fs_store(context.context.get(), root);

  static const char* const kAnchors[] = {"every rank started", "the first save began", "the first commit"};
  static const int kWorldSizes[] = {1, 2, 3, 4, 6};
  std::mt19937_64 rng(seed);
  Pace pace;
  Progress progress;
  Stats stats;
  for (uint64_t i = 0; i < iterations; ++i) {
    const int ranks = kWorldSizes[std::uniform_int_distribution<size_t>(0, std::size(kWorldSizes) - 1)(rng)];
    const KillAt when = draw_kill(rng, pace);
    INFO("kill " << i << ": " << ranks << " ranks, " << when.after_us << " us after "
                 << kAnchors[static_cast<int>(when.anchor)] << " (seed " << seed << ")");
    const JobRun run = run_and_kill(root, dir.path, ranks, when, rng, pace);
    std::string report;
    for (const auto& line : run.lines) report += line + "\n";
    INFO("report:\n" << report << "mpirun output:\n" << run.output);
    REQUIRE_FALSE(run.hung);
    REQUIRE_FALSE(run.exited_early);
    ++stats.world_sizes[ranks];
    absorb(run, ranks, progress, stats);
    stats.kills_before_saving += progress.died_before_saving;
    stats.kills_mid_save += progress.in_flight.has_value();
    check_store(store.get(), progress, stats);
  }

  std::string sizes;
  for (const auto& [ranks, runs] : stats.world_sizes) sizes += " " + std::to_string(ranks) + "x" + std::to_string(runs);
  WARN("crash harness across ranks: " << progress.commits << " commits, last committed step " << progress.committed
                                      << "; world sizes (ranks x jobs):" << sizes << "; kills: "
                                      << stats.kills_before_saving << " before the first save, " << stats.kills_mid_save
                                      << " mid-save (" << stats.kills_with_torn_save << " left it torn, "
                                      << stats.kills_after_unreported << " came after its commit); "
                                      << stats.resumes_checked << " rank restores checked element by element; "
                                      << stats.errors_after_kill << " survivors' calls failed after a kill");
  // The schedule must have exercised what it claims: training went on
  // across restarts, restores at several world sizes were checked, and
  // many kills hit a save.
  if (iterations >= 100) {
    CHECK(progress.commits >= iterations / 4);
    CHECK(stats.resumes_checked >= iterations);
    CHECK(stats.kills_before_saving >= iterations / 10);
    CHECK(stats.kills_mid_save >= iterations / 4);
    CHECK(stats.kills_with_torn_save >= iterations / 10);
  }
}
