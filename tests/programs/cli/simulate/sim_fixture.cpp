#include "sim_fixture.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "job_reader.hpp"
#include "scheduler_source.hpp"
#include "test_helpers.hpp"

namespace frugal::test {

frugal_context* sim_context() {
  static const host::ContextPtr context = [] {
    auto c = host::make_context();
    host::check(frugal_context_load_plugin(c.get(), builtin_path("schedule_lr").c_str()));
    if (std::filesystem::exists(builtin_path("policy_cost")))
      host::check(frugal_context_load_plugin(c.get(), builtin_path("policy_cost").c_str()));
    host::check(frugal_context_load_plugin(c.get(), plugin_path("probe_policy").c_str()));
    return c;
  }();
  return context.get();
}

std::string job_json(double hours, const std::string& plans_json, const std::string& extra) {
  return fmt::format(
      R"({{
  "name": "test-job",
  "gpus_per_node": 8,
  "nodes": 1,
  "work": {{"gpu_hours": {}}},
  "throughput": {{"tokens_per_gpu_s": 1000, "scaling_efficiency": 0.9}},
  "tokens_per_step": 100000,
  "checkpoint": {{"full_s": 300, "heartbeat_s": 60}},
  "restart_s": 600,
  "prices": {{"spot": 10, "reserved": 30}},
  {}
  "telemetry_interval_s": 3600,
  "plans": {}
}})",
      hours * 8,
      extra.empty() ? R"("preemption": {"spot_mtbf_node_h": 0, "capacity_wait_mean_s": 0, "notice_s": 0},)" : extra,
      plans_json);
}

simulate::Job parse_test_job(const std::string& text) { return simulate::parse_job(text, "test.json", "", {}); }

simulate::RunResult run_plan(const simulate::Job& job, size_t plan, const simulate::Trace* trace, uint64_t seed,
                             std::vector<simulate::TimelinePoint>* timeline) {
  const simulate::PlanConfig config(job, job.plans[plan]);
  simulate::SchedulerSource source(sim_context(), config);
  const auto setup = simulate::make_run_setup(job, job.plans[plan], trace);
  auto result = simulate::simulate_run(setup, source, seed, timeline);
  INFO("books: " << simulate::check_conservation(result));
  CHECK(simulate::check_conservation(result).empty());
  return result;
}

namespace {

// A directory for the test's files, removed when the test process ends.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    const std::string pattern = (std::filesystem::temp_directory_path() / "frugal-simulate-test-XXXXXX").string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (mkdtemp(buffer.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = buffer.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

std::string temp_file(const std::string& name, const std::string& text) {
  static const TempDir dir;
  const std::string path = (dir.path / name).string();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  return path;
}

}  // namespace frugal::test
