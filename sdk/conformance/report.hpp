// report.hpp — the verdicts of a conformance run: one line per rule per
// strategy, printed as text (or JSON) once every strategy is checked.
#pragma once
#include <string>
#include <vector>

namespace frugal::conformance {

// A rule passed, failed, or was skipped with a reason (it could not run:
// no value for a required option, nothing declared to compare); a skip
// does not fail the run.
enum class Outcome { pass, fail, skip };

// "PASS", "FAIL" or "SKIP".
const char* outcome_name(Outcome outcome);

// One checked rule of one strategy ("packer_seq/greedy", "determinism").
struct Verdict {
  Outcome outcome;
  std::string strategy;
  std::string rule;
  std::string message;
};

class Report {
 public:
  void add(Verdict verdict) { verdicts_.push_back(std::move(verdict)); }
  [[nodiscard]] const std::vector<Verdict>& verdicts() const { return verdicts_; }
  [[nodiscard]] bool all_pass() const;
  // "PASS  strategy  rule: message" lines (FAIL, SKIP) and a summary line.
  [[nodiscard]] std::string text() const;
  // {"plugin": ..., "pass": bool, "results": [{"status": "pass"|"fail"|"skip", ...}]}.
  [[nodiscard]] std::string json(const std::string& plugin) const;

 private:
  std::vector<Verdict> verdicts_;
};

}  // namespace frugal::conformance
