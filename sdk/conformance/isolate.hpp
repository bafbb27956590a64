// isolate.hpp — runs one strategy's checks in a forked child, so a plugin
// that crashes fails the rule it crashed on instead of ending the run.
#pragma once
#include <functional>
#include <string>

#include "report.hpp"
#include "strategy_checks.hpp"

namespace frugal::conformance {

// Runs body(sink) and adds its verdicts to `report` under `label`; with
// `fork`, in a child process whose crash or failed exit (a sanitizer's
// report) becomes a FAIL naming the rule that was running.
void run_checks(const std::string& label, bool fork, Report& report, const std::function<void(Sink&)>& body);

}  // namespace frugal::conformance
