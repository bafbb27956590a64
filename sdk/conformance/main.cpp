// frugal-conformance PLUGIN.so: checks the contract of every strategy a
// plugin declares and prints a PASS/FAIL/SKIP report (exit 0 no rule failed,
// 1 a rule failed, 2 bad usage).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "command_line.hpp"
#include "frugal/frugal.h"
#include "isolate.hpp"
#include "kit_options.hpp"
#include "report.hpp"
#include "strategy_checks.hpp"

namespace fc = frugal::conformance;

namespace {

struct StrategyRef {
  int32_t kind;
  uint32_t flags;
  std::string name;
  std::string plugin;
  std::vector<fc::DeclaredOption> declared;
};

// A context with only `path` loaded, or NULL with `error` set to the
// loader's refusal.
frugal_context* load(const std::string& path, std::string& error) {
  frugal_context* ctx = nullptr;
  if (frugal_error* e = frugal_context_create(&ctx)) {
    error = frugal_error_message(e);
    frugal_error_destroy(e);
    return nullptr;
  }
  // The plugin's own log lines would interleave with the report.
  if (frugal_error* e = frugal_context_set_log_callback(ctx, nullptr, nullptr, FRUGAL_LOG_OFF)) {
    error = frugal_error_message(e);
    frugal_error_destroy(e);
    frugal_context_destroy(ctx);
    return nullptr;
  }
  if (frugal_error* e = frugal_context_load_plugin(ctx, path.c_str())) {
    error = std::string(frugal_error_code_name(frugal_error_code(e))) + ": " + frugal_error_message(e);
    frugal_error_destroy(e);
    frugal_context_destroy(ctx);
    return nullptr;
  }
  return ctx;
}

std::vector<StrategyRef> strategies(frugal_context* ctx) {
  std::vector<StrategyRef> out;
  frugal_plugin_info plugin{};
  plugin.struct_size = sizeof plugin;
  if (frugal_error* e = frugal_context_plugin_info(ctx, 0, &plugin)) {
    frugal_error_destroy(e);
    return out;
  }
  for (size_t i = 0; i < plugin.strategy_count; ++i) {
    frugal_strategy_info info{};
    info.struct_size = sizeof info;
    if (frugal_error* e = frugal_context_strategy_info(ctx, 0, i, &info)) {
      frugal_error_destroy(e);
      continue;
    }
    out.push_back(
        {info.kind, info.flags, info.name, info.plugin_name, fc::read_declared_options(ctx, i, info.option_count)});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string usage_error;
  const auto cl = fc::parse_command_line(argc, argv, usage_error);
  if (!cl) {
    std::fputs(fc::usage_error_text(usage_error).c_str(), stderr);
    return 2;
  }
  if (cl->help) {
    std::fputs(fc::usage_text().c_str(), stdout);
    return 0;
  }
  const std::string path = std::filesystem::absolute(cl->plugin).string();
  fc::Report report;
  std::string error;
  frugal_context* ctx = load(path, error);
  if (ctx == nullptr) {
    report.add({fc::Outcome::fail, cl->plugin, "descriptor", "the core refuses the plugin: " + error});
  } else {
    const std::vector<StrategyRef> list = strategies(ctx);
    frugal_context_destroy(ctx);
    report.add({list.empty() ? fc::Outcome::fail : fc::Outcome::pass, cl->plugin, "descriptor",
                list.empty() ? "the core loads it but it declares no strategy of a kind this core knows"
                             : "the core loads it: " + std::to_string(list.size()) + " strategies"});
    for (const StrategyRef& s : list) {
      const std::string label = s.plugin + "/" + s.name;
      // Made and removed here, not in the checking child, so that a child
      // that crashes leaves nothing behind.
      std::error_code ec;
      const auto tmp =
          std::filesystem::temp_directory_path() / ("frugal-conformance-" + std::to_string(::getpid()) + "-" + s.name);
      std::filesystem::create_directories(tmp, ec);
      fc::run_checks(label, cl->fork, report, [&](fc::Sink& sink) {
        fc::Subject subject;
        subject.plugin_path = path;
        subject.name = s.name;
        subject.label = label;
        subject.kind = s.kind;
        subject.flags = s.flags;
        subject.option_args = &cl->options;
        subject.declared = s.declared;
        subject.tmpdir = tmp.string();
        std::string load_error;
        subject.context = load(path, load_error);
        if (subject.context == nullptr) {
          sink.verdict(fc::Outcome::fail, "descriptor", "the core refuses a second load: " + load_error);
        } else {
          fc::check_strategy(subject, sink);
        }
      });
      std::filesystem::remove_all(tmp, ec);
    }
  }
  const std::string out = cl->json ? report.json(cl->plugin) : report.text();
  std::fputs(out.c_str(), stdout);
  return report.all_pass() ? 0 : 1;
}
