// frugal-conformance PLUGIN.so: checks the contract of every strategy a
// plugin declares and prints a PASS/FAIL report (exit 0 all pass, 1 a rule
// failed, 2 bad usage).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "command_line.hpp"
#include "frugal/frugal.h"
#include "isolate.hpp"
#include "report.hpp"
#include "strategy_checks.hpp"

namespace fc = frugal::conformance;

namespace {

struct StrategyRef {
  int32_t kind;
  uint32_t flags;
  std::string name;
  std::string plugin;
  std::vector<fc::RequiredOption> required;
};

// The value the kit gives a declared required option ("" when it cannot).
std::string built_value(const frugal_option_info& o) {
  auto number = [&](double v) {
    char text[64];
    if (o.type == FRUGAL_OPTION_INT) std::snprintf(text, sizeof text, "%lld", static_cast<long long>(v));
    else std::snprintf(text, sizeof text, "%.17g", v);
    return std::string(text);
  };
  if (o.default_value != nullptr) return o.default_value;
  if (o.flags & FRUGAL_OPTION_DECL_HAS_MIN) return number(o.min);
  if (o.flags & FRUGAL_OPTION_DECL_HAS_MAX) return number(o.max);
  if (o.choices != nullptr) return std::string(o.choices).substr(0, std::string(o.choices).find('|'));
  if (o.flags & FRUGAL_OPTION_DECL_DIRECTORY) return std::string("{tmpdir}/") + o.name;
  if (o.type == FRUGAL_OPTION_BOOL) return "false";
  if (o.type == FRUGAL_OPTION_INT || o.type == FRUGAL_OPTION_DOUBLE) return "1";
  return "";
}

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
    StrategyRef ref{info.kind, info.flags, info.name, info.plugin_name, {}};
    for (size_t j = 0; j < info.option_count; ++j) {
      frugal_option_info option{};
      option.struct_size = sizeof option;
      if (frugal_error* e = frugal_context_strategy_option(ctx, 0, i, j, &option)) {
        frugal_error_destroy(e);
        continue;
      }
      if (option.flags & FRUGAL_OPTION_DECL_REQUIRED) ref.required.push_back({option.name, built_value(option)});
    }
    out.push_back(std::move(ref));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string usage_error;
  const auto cl = fc::parse_command_line(argc, argv, usage_error);
  if (!cl) {
    std::fprintf(stderr, "frugal-conformance: %s\n\n%s", usage_error.c_str(), fc::kUsage);
    return 2;
  }
  if (cl->help) {
    std::fputs(fc::kUsage, stdout);
    return 0;
  }
  const std::string path = std::filesystem::absolute(cl->plugin).string();
  fc::Report report;
  std::string error;
  frugal_context* ctx = load(path, error);
  if (ctx == nullptr) {
    report.add({false, cl->plugin, "descriptor", "the core refuses the plugin: " + error});
  } else {
    const std::vector<StrategyRef> list = strategies(ctx);
    frugal_context_destroy(ctx);
    report.add({!list.empty(), cl->plugin, "descriptor",
                list.empty() ? "the core loads it but it declares no strategy of a kind this core knows"
                             : "the core loads it: " + std::to_string(list.size()) + " strategies"});
    for (const StrategyRef& s : list) {
      const std::string label = s.plugin + "/" + s.name;
      fc::run_checks(label, cl->fork, report, [&](fc::Sink& sink) {
        std::error_code ec;
        const auto tmp = std::filesystem::temp_directory_path() /
                         ("frugal-conformance-" + std::to_string(::getpid()) + "-" + s.name);
        std::filesystem::create_directories(tmp, ec);
        fc::Subject subject;
        subject.plugin_path = path;
        subject.name = s.name;
        subject.label = label;
        subject.kind = s.kind;
        subject.flags = s.flags;
        subject.option_args = &cl->options;
        subject.required = s.required;
        subject.tmpdir = tmp.string();
        std::string load_error;
        subject.context = load(path, load_error);
        if (subject.context == nullptr) {
          sink.verdict(false, "descriptor", "the core refuses a second load: " + load_error);
        } else {
          fc::check_strategy(subject, sink);
        }
        std::filesystem::remove_all(tmp, ec);
      });
    }
  }
  const std::string out = cl->json ? report.json(cl->plugin) : report.text();
  std::fputs(out.c_str(), stdout);
  return report.all_pass() ? 0 : 1;
}
