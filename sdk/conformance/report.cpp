#include "report.hpp"

#include <algorithm>
#include <cstdio>

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

std::string json_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string Report::json(const std::string& plugin) const {
  std::string out = "{\"plugin\": \"" + json_escape(plugin) + "\", \"pass\": " + (all_pass() ? "true" : "false") +
                    ", \"results\": [";
  for (std::size_t i = 0; i < verdicts_.size(); ++i) {
    const Verdict& v = verdicts_[i];
    static constexpr const char* kStatus[] = {"pass", "fail", "skip"};  // Outcome order
    out += std::string(i ? ", " : "") + "{\"status\": \"" + kStatus[static_cast<int>(v.outcome)] +
           "\", \"strategy\": \"" +
           json_escape(v.strategy) + "\", \"rule\": \"" + json_escape(v.rule) + "\", \"message\": \"" +
           json_escape(v.message) + "\"}";
  }
  return out + "]}\n";
}

}  // namespace frugal::conformance
