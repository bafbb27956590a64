// The report's outputs: report.json carries every figure with its value,
// report.svg is well-formed XML with both runs' series and the legend, and
// the terminal table has every row.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report.hpp"
#include "synthetic_runs.hpp"

using namespace frugal_demo;
using demo_report_test::file_text;
using demo_report_test::TempDir;

namespace {

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
  w.report.frugal.run_info.emplace_back("note", "tab\there, bad byte \xff");
  write_report_json(w.report, file);
  const auto text = file_text(file);
  // ASCII only: what is beyond it, or a control character, is escaped.
  CHECK(std::all_of(text.begin(), text.end(), [](char c) { return c == '\n' || (c >= 0x20 && c < 0x7f); }));
  auto json = nlohmann::json::parse(text);
  CHECK(json["equal_time_clock_s"] == 57);

  auto& baseline = json["baseline"];
  auto& frugal = json["frugal"];
  auto& savings = json["frugal_vs_baseline"];
  for (const auto* run : {&baseline, &frugal}) {
    for (const auto* key : {"/dir",
                            "/steps",
                            "/attempts",
                            "/real_tokens",
                            "/slots",
                            "/processed_tokens",
                            "/padding_waste",
                            "/clock_s",
                            "/tokens_per_s",
                            "/time_scale",
                            "/tokens_per_real_s",
                            "/train_loss_start",
                            "/train_loss_end",
                            "/eval_loss_first",
                            "/eval_loss_final",
                            "/eval_loss_at_equal_time",
                            "/checkpoints_full",
                            "/checkpoints_heartbeat",
                            "/stall_total_s",
                            "/stall_mean_s",
                            "/preempt_notices",
                            "/kills",
                            "/restarts",
                            "/preemptions",
                            "/mean_steps_lost",
                            "/mean_seconds_lost",
                            "/resume/replayed_steps",
                            "/resume/max_abs_loss_diff",
                            "/resume/restored_steps",
                            "/resume/exact",
                            "/resume/from_checkpointed_step",
                            "/dollars/total",
                            "/dollars/spot",
                            "/dollars/reserved",
                            "/dollars/productive",
                            "/dollars/stall",
                            "/dollars/lost",
                            "/expert_balance/worst_max_over_mean",
                            "/expert_balance/mean_cv",
                            "/plan"}) {
      INFO(key);
      CHECK(run->contains(nlohmann::json::json_pointer(key)));
    }
  }
  CHECK(baseline["steps"] == 6);
  CHECK(baseline["padding_waste"] == w.report.baseline.padding_waste);
  CHECK(baseline["time_scale"].is_null());
  CHECK(baseline["preemptions"] == nlohmann::json::array());
  CHECK(baseline["dollars"]["total"] == 3.1);
  CHECK(baseline["plan"]["batching"] == "padded");

  CHECK(frugal["steps"] == 8);
  CHECK(frugal["real_tokens"] == 720);
  CHECK(frugal["processed_tokens"] == 900);
  CHECK(frugal["time_scale"] == 2);
  CHECK(frugal["eval_loss_final"] == 2);
  auto& preemption = frugal["preemptions"].at(0);
  CHECK(preemption["steps_lost"] == 2);
  CHECK(preemption["seconds_lost"] == 13);
  CHECK(preemption["signal"] == "SIGKILL");
  CHECK(preemption["restored_step"] == 3);
  CHECK(frugal["resume"]["max_abs_loss_diff"] == 0);
  CHECK(frugal["resume"]["exact"] == true);
  CHECK(frugal["resume"]["from_checkpointed_step"] == true);
  CHECK(frugal["dollars"]["spot"] == 1);
  CHECK(frugal["dollars"]["lost"] == 0.2);
  CHECK(frugal["expert_balance"]["layers"].at(0)["max_over_mean"] == 1.6);
  CHECK(frugal["stall_mean_s"] == 2.5 / 3.0);
  // Text is kept, an invalid byte becomes U+FFFD.
  CHECK(frugal["plan"]["note"] == "tab\there, bad byte \xef\xbf\xbd");

  CHECK(savings["dollars_ratio"] == *w.report.savings.dollars_ratio);
  CHECK(savings["padding_waste_delta"] == w.report.savings.padding_waste_delta);
  CHECK(savings["frugal_clock_to_target_s"] == *w.report.savings.frugal_clock_to_target_s);
  CHECK(savings["frugal_dollars_to_target"] == *w.report.savings.frugal_dollars_to_target);
  CHECK(savings["target_loss"] == 3);
  for (const auto* key : {"dollars_saved", "tokens_per_s_ratio", "eval_loss_delta_at_equal_time",
                          "baseline_dollars_to_target", "dollars_to_target_ratio"}) {
    INFO(key);
    REQUIRE(savings.contains(key));
    CHECK(savings[key].is_number());
  }
}

TEST_CASE("report.json writes a figure that is missing or not finite as null") {
  Written w;
  w.report.savings.target_loss.reset();
  w.report.savings.dollars_saved = NAN;
  w.report.frugal.clock_s = INFINITY;
  const auto file = w.tmp.path() / "report.json";
  write_report_json(w.report, file);
  auto json = nlohmann::json::parse(file_text(file));
  CHECK(json["frugal_vs_baseline"]["target_loss"].is_null());
  CHECK(json["frugal_vs_baseline"]["dollars_saved"].is_null());
  CHECK(json["frugal"]["clock_s"].is_null());
  CHECK(json["baseline"]["clock_s"].is_number());
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
  for (const auto* title :
       {"<title>baseline eval loss</title>", "<title>frugal eval loss</title>", "<title>baseline training loss</title>",
        "<title>frugal training loss</title>", "<title>baseline dollars</title>", "<title>frugal dollars</title>",
        "<g id=\"legend\"", ">full checkpoint<", ">preemption (kill)<", ">restart (resume)<",
        "heartbeat checkpoint, step 2", "full checkpoint, step 6", "restart: attempt 1 resumed from step 3",
        "killed (SIG&lt;KILL&gt; &amp; &quot;9&quot;) after step 5", "job clock (s)", "Cumulative simulated cost"}) {
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
       {"padding waste (%)",
        "40.0",
        "10.0",
        "-30.0 pp",
        "tokens/s (job clock)",
        "tokens/s (real time)",
        "training loss (mean of 5 steps)",
        "4.000->3.000",
        "eval loss at equal time (57.0 s)",
        "3.200",
        "-1.200",
        "checkpoints (full / heartbeat)",
        "2 / 1",
        "checkpoint stall, total (s)",
        "preemptions (notices / kills)",
        "1 / 1",
        "work lost per preemption (steps)",
        "work lost per preemption (s)",
        "13.0",
        "simulated cost ($)",
        "3.1000",
        "1.2000",
        "saves $1.9000",
        "productive / stall / lost ($)",
        "$ to reach eval loss 3.000",
        "0.8200",
        "expert load max/mean (worst layer)",
        "1.60",
        "expert load CV (mean of layers)",
        "frugal attempt 0: notice at 26.0 s, killed (SIGKILL) at 28.0 s after step 5; resumed from step 3",
        "lost 2 steps, 13.0 s",
        "restored step(s) 3 (each one checkpointed); 2 replayed step(s)",
        "(exact)",
        "layer 0 (4 experts) max/mean 1.60",
        "frugal plan: batching=packed time_scale=2",
        "files: "}) {
    INFO(line);
    CHECK(table.find(line) != std::string::npos);
  }
}
