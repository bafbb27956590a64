// report.hpp — the verdicts of a conformance run: one line per rule per
// strategy, printed as text (or JSON) once every strategy is checked.
#pragma once
#include <string>
#include <vector>

namespace frugal::conformance {

// One checked rule of one strategy ("packer_seq/greedy", "determinism").
struct Verdict {
  bool pass;
  std::string strategy;
  std::string rule;
  std::string message;
};

class Report {
 public:
  void add(Verdict verdict) { verdicts_.push_back(std::move(verdict)); }
  const std::vector<Verdict>& verdicts() const { return verdicts_; }
  bool all_pass() const;
  // "PASS  strategy  rule: message" lines and a summary line.
  std::string text() const;
  // {"plugin": ..., "pass": bool, "results": [{...}]}.
  std::string json(const std::string& plugin) const;

 private:
  std::vector<Verdict> verdicts_;
};

// Escapes `text` as the inside of a JSON string.
std::string json_escape(const std::string& text);

}  // namespace frugal::conformance
