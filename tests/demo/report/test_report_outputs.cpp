// The report's outputs: report.json carries every figure with its value,
// report.svg is well-formed XML with both runs' series and the legend, and
// the terminal table has every row.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "json_out.hpp"
#include "report.hpp"
#include "synthetic_runs.hpp"

using namespace frugal_demo;
using demo_report_test::TempDir;

namespace {

std::string file_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Written {
  TempDir tmp;
  RunMetrics baseline, frugal;
  Report report;
  Written() {
    demo_report_test::write_baseline_run(tmp.path() / "baseline");
    demo_report_test::write_frugal_run(tmp.path() / "frugal");
    baseline = read_run_metrics(tmp.path() / "baseline");
    frugal = read_run_metrics(tmp.path() / "frugal");
    report = compute_report(baseline, frugal);
  }
};

// The text of the JSON object that follows "key": { in `json`, braces
// balanced (strings in the report hold no braces).
std::string json_section(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\": {");
  if (at == std::string::npos) return {};
  int depth = 0;
  for (auto i = json.find('{', at); i < json.size(); ++i) {
    depth += json[i] == '{' ? 1 : json[i] == '}' ? -1 : 0;
    if (depth == 0) return json.substr(at, i + 1 - at);
  }
  return {};
}

bool has_member(const std::string& json, const std::string& key, const std::string& value) {
  return json.find(fmt::format("\"{}\": {}", key, value)) != std::string::npos;
}

// Tags balanced and properly nested, attribute values quoted, every '&'
// an entity: enough of XML's well-formedness to catch a broken writer.
std::string xml_problem(const std::string& xml) {
  std::vector<std::string> open;
  std::size_t i = 0;
  while ((i = xml.find_first_of("<&", i)) != std::string::npos) {
    if (xml[i] == '&') {
      const auto semi = xml.find(';', i);
      const auto entity = xml.substr(i, semi == std::string::npos ? 8 : semi + 1 - i);
      if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" && entity != "&apos;")
        return "bad entity " + entity;
      ++i;
      continue;
    }
    if (xml.compare(i, 2, "<?") == 0) {
      i = xml.find("?>", i) + 2;
      continue;
    }
    std::size_t end = i + 1;
    bool quoted = false;
    for (; end < xml.size() && (quoted || xml[end] != '>'); ++end) {
      if (xml[end] == '"') quoted = !quoted;
      if (!quoted && xml[end] == '<') return "'<' inside a tag at " + std::to_string(i);
    }
    if (end >= xml.size()) return "unterminated tag at " + std::to_string(i);
    const std::string tag = xml.substr(i + 1, end - i - 1);
    if (tag.starts_with("/")) {
      if (open.empty() || open.back() != tag.substr(1)) return "unexpected </" + tag.substr(1) + ">";
      open.pop_back();
    } else if (!tag.ends_with("/")) {
      open.push_back(tag.substr(0, tag.find_first_of(" \n")));
    }
    i = end + 1;
  }
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

}  // namespace

TEST_CASE("report.json holds every figure with its value") {
  Written w;
  const auto file = w.tmp.path() / "report.json";
  write_report_json(w.report, file);
  const auto json = file_text(file);
  CHECK(has_member(json, "equal_time_clock_s", "57"));

  const auto baseline = json_section(json, "baseline");
  const auto frugal = json_section(json, "frugal");
  const auto savings = json_section(json, "frugal_vs_baseline");
  REQUIRE(!baseline.empty());
  REQUIRE(!frugal.empty());
  REQUIRE(!savings.empty());
  for (const auto* key :
       {"dir", "steps", "attempts", "real_tokens", "slots", "processed_tokens", "padding_waste", "clock_s", "tokens_per_s",
        "time_scale", "tokens_per_real_s", "train_loss_start", "train_loss_end", "eval_loss_first", "eval_loss_final",
        "eval_loss_at_equal_time", "checkpoints_full", "checkpoints_heartbeat", "stall_total_s", "stall_mean_s",
        "preempt_notices", "kills", "restarts", "preemptions", "mean_steps_lost", "mean_seconds_lost", "resume",
        "replayed_steps", "max_abs_loss_diff", "restored_steps", "exact", "from_checkpointed_step", "dollars", "total",
        "spot", "reserved", "productive", "stall", "lost", "expert_balance", "worst_max_over_mean", "mean_cv", "plan"}) {
    INFO(key);
    CHECK(baseline.find(fmt::format("\"{}\":", key)) != std::string::npos);
    CHECK(frugal.find(fmt::format("\"{}\":", key)) != std::string::npos);
  }
  CHECK(has_member(baseline, "steps", "6"));
  CHECK(has_member(baseline, "padding_waste", fmt::format("{}", w.report.baseline.padding_waste)));
  CHECK(has_member(baseline, "time_scale", "null"));
  CHECK(has_member(baseline, "preemptions", "[]"));
  CHECK(has_member(baseline, "total", "3.1"));
  CHECK(has_member(baseline, "batching", "\"padded\""));

  CHECK(has_member(frugal, "steps", "8"));
  CHECK(has_member(frugal, "real_tokens", "720"));
  CHECK(has_member(frugal, "processed_tokens", "900"));
  CHECK(has_member(frugal, "time_scale", "2"));
  CHECK(has_member(frugal, "eval_loss_final", "2"));
  CHECK(has_member(frugal, "steps_lost", "2"));
  CHECK(has_member(frugal, "seconds_lost", "13"));
  CHECK(has_member(frugal, "signal", "\"SIGKILL\""));
  CHECK(has_member(frugal, "restored_step", "3"));
  CHECK(has_member(frugal, "max_abs_loss_diff", "0"));
  CHECK(has_member(frugal, "exact", "true"));
  CHECK(has_member(frugal, "from_checkpointed_step", "true"));
  CHECK(has_member(frugal, "spot", "1"));
  CHECK(has_member(frugal, "lost", "0.2"));
  CHECK(has_member(frugal, "max_over_mean", "1.6"));
  CHECK(has_member(frugal, "stall_mean_s", fmt::format("{}", 2.5 / 3.0)));

  CHECK(has_member(savings, "dollars_ratio", fmt::format("{}", *w.report.savings.dollars_ratio)));
  CHECK(has_member(savings, "padding_waste_delta", fmt::format("{}", w.report.savings.padding_waste_delta)));
  CHECK(has_member(savings, "frugal_clock_to_target_s", fmt::format("{}", *w.report.savings.frugal_clock_to_target_s)));
  CHECK(has_member(savings, "frugal_dollars_to_target", fmt::format("{}", *w.report.savings.frugal_dollars_to_target)));
  CHECK(has_member(savings, "target_loss", "3"));
  for (const auto* key : {"dollars_saved", "tokens_per_s_ratio", "eval_loss_delta_at_equal_time",
                          "baseline_dollars_to_target", "dollars_to_target_ratio"}) {
    INFO(key);
    CHECK(savings.find(fmt::format("\"{}\": ", key)) != std::string::npos);
    CHECK(savings.find(fmt::format("\"{}\": null", key)) == std::string::npos);
  }
}

TEST_CASE("the JSON writer escapes strings and writes null for missing values") {
  JsonOut j;
  j.begin_object();
  j.string("text", "a \"quoted\"\\ line\n\x01");
  j.number("missing", std::optional<double>{});
  j.number("nan", NAN);
  j.begin_array("list");
  j.integer("", 1);
  j.integer("", 2);
  j.end_array();
  j.begin_array("empty");
  j.end_array();
  j.end_object();
  CHECK(j.text() ==
        "{\n  \"text\": \"a \\\"quoted\\\"\\\\ line\\n\\u0001\",\n  \"missing\": null,\n  \"nan\": null,\n"
        "  \"list\": [\n    1,\n    2\n  ],\n  \"empty\": []\n}");
  JsonOut open;
  open.begin_object();
  CHECK_THROWS_AS(open.text(), std::logic_error);
}

TEST_CASE("report.svg is well-formed and shows both runs, the markers and the legend") {
  Written w;
  // A detail with XML's special characters must come out escaped.
  w.frugal.events[2].detail = "SIG<KILL> & \"9\"";
  const auto file = w.tmp.path() / "report.svg";
  write_report_svg(w.baseline, w.frugal, w.report, file);
  const auto svg = file_text(file);
  CHECK(xml_problem(svg).empty());
  CHECK(xml_problem("<svg><g></svg></g>") == "unexpected </svg>");  // the checker itself can fail
  CHECK(xml_problem("<svg>a & b</svg>") != "");
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
  for (const auto* title : {"<title>baseline eval loss</title>", "<title>frugal eval loss</title>",
                            "<title>baseline training loss</title>", "<title>frugal training loss</title>",
                            "<title>baseline dollars</title>", "<title>frugal dollars</title>", "<g id=\"legend\"",
                            ">full checkpoint<", ">preemption (kill)<", ">restart (resume)<", "heartbeat checkpoint, step 2",
                            "full checkpoint, step 6", "restart: attempt 1 resumed from step 3",
                            "killed (SIG&lt;KILL&gt; &amp; &quot;9&quot;) after step 5", "job clock (s)",
                            "Cumulative simulated cost"}) {
    INFO(title);
    CHECK(svg.find(title) != std::string::npos);
  }
  // Self-contained: no scripts, no external references.
  CHECK(svg.find("<script") == std::string::npos);
  CHECK(svg.find("href") == std::string::npos);
}

TEST_CASE("the terminal table has every figure for both runs") {
  Written w;
  const auto file = w.tmp.path() / "table.txt";
  {
    std::FILE* out = std::fopen(file.c_str(), "w");
    REQUIRE(out);
    print_report_table(w.report, out);
    std::fclose(out);
  }
  const auto table = file_text(file);
  CHECK(table.rfind("figure", 0) == 0);
  for (const auto* line :
       {"padding waste (%)", "40.0", "10.0", "-30.0 pp", "tokens/s (job clock)", "tokens/s (real time)",
        "training loss (mean of 5 steps)", "4.000->3.000", "eval loss at equal time (57.0 s)", "3.200", "-1.200",
        "checkpoints (full / heartbeat)", "2 / 1", "checkpoint stall, total (s)", "preemptions (notices / kills)",
        "1 / 1", "work lost per preemption (steps)", "work lost per preemption (s)", "13.0", "simulated cost ($)",
        "3.1000", "1.2000", "saves $1.9000", "productive / stall / lost ($)", "$ to reach eval loss 3.000", "0.8200",
        "expert load max/mean (worst layer)", "1.60", "expert load CV (mean of layers)",
        "frugal attempt 0: notice at 26.0 s, killed (SIGKILL) at 28.0 s after step 5; resumed from step 3",
        "lost 2 steps, 13.0 s", "restored step(s) 3 (each one checkpointed); 2 replayed step(s)", "(exact)",
        "layer 0 (4 experts) max/mean 1.60", "frugal plan: batching=packed time_scale=2", "files: "}) {
    INFO(line);
    CHECK(table.find(line) != std::string::npos);
  }
}
