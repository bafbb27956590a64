#include "report.hpp"

#include <algorithm>
#include <cstdio>

namespace frugal::conformance {

bool Report::all_pass() const {
  return std::all_of(verdicts_.begin(), verdicts_.end(), [](const Verdict& v) { return v.pass; });
}

std::string Report::text() const {
  std::string out;
  std::size_t failed = 0;
  for (const Verdict& v : verdicts_) {
    out += (v.pass ? "PASS  " : "FAIL  ") + v.strategy + "  " + v.rule + ": " + v.message + "\n";
    if (!v.pass) ++failed;
  }
  out += "summary: " + std::to_string(verdicts_.size() - failed) + " passed, " + std::to_string(failed) +
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
    out += std::string(i ? ", " : "") + "{\"status\": \"" + (v.pass ? "pass" : "fail") + "\", \"strategy\": \"" +
           json_escape(v.strategy) + "\", \"rule\": \"" + json_escape(v.rule) + "\", \"message\": \"" +
           json_escape(v.message) + "\"}";
  }
  return out + "]}\n";
}

}  // namespace frugal::conformance
