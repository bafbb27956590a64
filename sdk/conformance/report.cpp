#include "report.hpp"

#include <algorithm>

#include "json_text.hpp"

namespace frugal::conformance {

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::pass: return "PASS";
    case Outcome::fail: return "FAIL";
    case Outcome::skip: return "SKIP";
  }
  return "FAIL";
}

bool Report::all_pass() const {
  return std::none_of(verdicts_.begin(), verdicts_.end(), [](const Verdict& v) { return v.outcome == Outcome::fail; });
}

std::string Report::text() const {
  std::string out;
  std::size_t counts[3] = {0, 0, 0};
  for (const Verdict& v : verdicts_) {
    out += std::string(outcome_name(v.outcome)) + "  " + v.strategy + "  " + v.rule + ": " + v.message + "\n";
    ++counts[static_cast<int>(v.outcome)];
  }
  const std::size_t failed = counts[static_cast<int>(Outcome::fail)];
  out += "summary: " + std::to_string(counts[static_cast<int>(Outcome::pass)]) + " passed, " +
         std::to_string(counts[static_cast<int>(Outcome::skip)]) + " skipped, " + std::to_string(failed) +
         " failed -> " + (failed == 0 ? "CONFORMS" : "DOES NOT CONFORM") + "\n";
  return out;
}

std::string Report::json(const std::string& plugin) const {
  static constexpr const char* kStatus[] = {"pass", "fail", "skip"};  // Outcome order
  json::Json results = json::Json::array();
  for (const Verdict& v : verdicts_)
    results.push_back({{"status", kStatus[static_cast<int>(v.outcome)]},
                       {"strategy", v.strategy},
                       {"rule", v.rule},
                       {"message", v.message}});
  const json::Json out = {{"plugin", plugin}, {"pass", all_pass()}, {"results", std::move(results)}};
  return json::json_text(out) + "\n";
}

}  // namespace frugal::conformance
